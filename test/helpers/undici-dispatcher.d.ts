// undici's base dispatcher class, by path: the tests check that esign leaves its prototype alone.
declare module 'undici/lib/dispatcher/dispatcher.js' {
  import { Dispatcher } from 'undici';
  export default Dispatcher;
}
