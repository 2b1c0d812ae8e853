// undici's ProxyAgent, from undici's public index. It opens HTTPS tunnels with the dispatcher's
// connect(), which the index attaches to every dispatcher: loading the index here, on the one path
// that needs it, avoids patching undici ourselves. A module of its own so that the bundle puts it in
// a chunk of its own, loaded only when a proxy is configured.
export { ProxyAgent } from 'undici';
