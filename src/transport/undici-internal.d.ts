// The two undici modules esign loads by path instead of through undici's index, which also loads
// fetch, WebSocket, caching and mocks (~18 ms more start-up). undici ships no typings for these
// paths, so they borrow the public ones. Only src/transport/undici.ts imports them, and
// test/unit/transport-contract.test.ts fails when an undici upgrade moves or changes them.
declare module 'undici/lib/dispatcher/agent.js' {
  import { Agent } from 'undici';
  export default Agent;
}
declare module 'undici/lib/core/connect.js' {
  import { buildConnector } from 'undici';
  export default buildConnector;
}
