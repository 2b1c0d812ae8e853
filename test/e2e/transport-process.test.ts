// The transport in the built binary, watched from inside the process (test/helpers/process-watch.ts):
// the proxy agent is loaded only when a request goes through a proxy, and no V8 flag is ever set.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { CREATE_ARGS as CREATE, LIVE_TOKEN as TOKEN } from '../helpers/create-command.js';
import { startProxy } from '../helpers/hostile.js';
import { ok, useScriptedServer } from '../helpers/scripted-server.js';
import { bundleProcessWatch, type ProcessWatch, runWatched } from '../helpers/spawn.js';

const server = useScriptedServer();
let hook: string;

beforeAll(async () => {
  hook = await bundleProcessWatch();
});

const watched = (args: string[], env: Record<string, string>) =>
  runWatched(hook, args, { env: { ESIGN_TOKEN: TOKEN, ...env } });

/** A text of undici's proxy agent module (lib/dispatcher/proxy-agent.js), wherever the bundle puts it. */
const PROXY_AGENT_TEXT = 'Proxy opts.clientFactory must be a function';

/** The files of the bundle the process loaded that hold undici's proxy agent. */
const proxyAgentFiles = (watch: ProcessWatch) =>
  watch.modules
    .filter((url) => url.startsWith('file:') && url.includes('/dist/'))
    .filter((url) => readFileSync(fileURLToPath(url), 'utf8').includes(PROXY_AGENT_TEXT));

describe('the proxy agent', () => {
  it('is not loaded for a direct request', async () => {
    server.script(ok());
    const { code, watch } = await watched([...CREATE, '-q'], { ESIGN_BASE_URL: server.baseUrl });
    expect(code).toBe(0);
    expect(server.requests).toHaveLength(1);
    expect(watch.modules.some((url) => url.endsWith('/dist/main.js'))).toBe(true); // the watch saw the bundle
    expect(proxyAgentFiles(watch)).toEqual([]);
  });

  it('is loaded when the request goes through a proxy, and opens its tunnel with CONNECT', async () => {
    // A proxy that answers CONNECT with 407: the tunnel was asked for through the bundle's proxy
    // agent (a dispatcher without connect() would fail with a TypeError instead).
    const proxy = await startProxy({ kind: '407' });
    try {
      const { code, stderr, watch } = await watched([...CREATE, '-q'], {
        ESIGN_BASE_URL: 'https://esign.example.com/api/v1',
        HTTPS_PROXY: `http://127.0.0.1:${proxy.port}`,
      });
      expect(code).toBe(6);
      expect(proxy.received).toEqual(['CONNECT esign.example.com:443']);
      expect(stderr).toContain(`the proxy 127.0.0.1:${proxy.port} (from HTTPS_PROXY) wants credentials (407`);
      expect(proxyAgentFiles(watch)).toEqual([
        expect.stringMatching(/\/dist\/chunks\/proxy-agent-[^/]*\.js$/),
      ]);
    } finally {
      await proxy.close();
    }
  });
});

describe('V8 flags', () => {
  it('are left as Node set them, by a create that sends and by one that does not', async () => {
    server.script(ok());
    const sent = await watched([...CREATE, '-q'], { ESIGN_BASE_URL: server.baseUrl });
    expect(sent.code).toBe(0);
    expect(sent.watch.flagsChanged).toBe(false);
    const dryRun = await watched([...CREATE, '--dry-run'], { ESIGN_BASE_URL: server.baseUrl });
    expect(dryRun.code).toBe(0);
    expect(dryRun.watch.flagsChanged).toBe(false);
  });
});
