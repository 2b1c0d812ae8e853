// Serves the files of one folder over HTTP on 127.0.0.1 (a free port), for trying scripts/install.sh
// against a local release: `node scripts/serve-folder.mjs release` prints its URL, one line, then
// serves until stopped. GET only, plain file names only (no sub-folders, nothing outside).
import { createReadStream, statSync } from 'node:fs';
import { createServer } from 'node:http';
import { join, resolve } from 'node:path';

const folder = resolve(process.argv[2] ?? '.');
const server = createServer((request, response) => {
  const name = decodeURIComponent(new URL(request.url ?? '/', 'http://x').pathname.slice(1));
  const file = join(folder, name);
  if (request.method !== 'GET' || !/^[\w.+-]+$/.test(name) || !isFile(file)) {
    response.writeHead(404).end('not found\n');
    return;
  }
  response.writeHead(200, {
    'content-type': 'application/octet-stream',
    'content-length': statSync(file).size,
  });
  createReadStream(file).pipe(response);
});
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`http://127.0.0.1:${server.address().port}\n`);
});

function isFile(file) {
  try {
    return statSync(file).isFile();
  } catch {
    return false;
  }
}
