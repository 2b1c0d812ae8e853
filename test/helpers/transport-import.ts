// Run as a child process (bundled): imports the transport, sends one request, and reports as one
// JSON line what that changed in the process. The transport must patch nothing and set no V8 flag.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { cachedDataVersionTag } from 'node:v8';
import Dispatcher from 'undici/lib/dispatcher/dispatcher.js';

const connectOf = () => typeof (Dispatcher.prototype as { connect?: unknown }).connect;
const tagBefore = cachedDataVersionTag();
const connectBefore = connectOf();
const { HttpClient } = await import('../../src/transport/http-client.js');
const tagAfterImport = cachedDataVersionTag();
const connectAfterImport = connectOf();

const server = createServer((request, response) => {
  request.resume();
  request.on('end', () => response.end('{}'));
});
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
const client = new HttpClient({ timeoutMs: 5000, env: {}, userAgent: 'contract' });
const { port } = server.address() as AddressInfo;
const answer = await client.postJson(new URL(`http://127.0.0.1:${port}/x`), '{}', {});
await client.close();
server.close();
process.stdout.write(
  `${JSON.stringify({
    status: answer.status,
    connectBefore,
    connectAfterImport,
    connectAfterRequest: connectOf(),
    flagsChangedByImport: tagAfterImport !== tagBefore,
    flagsChangedByRequest: cachedDataVersionTag() !== tagBefore,
  })}\n`,
);
