// What a client sends the sandbox reaches its log and its answers through the one escaping function
// of the CLI (escapeControl): a control character is shown as an escape, never sent to a terminal.
import { connect } from 'node:net';
import { describe, expect, it } from 'vitest';
import { startQuietSandbox } from './helpers.js';

/** One raw HTTP/1.1 request (bytes as given, for paths no URL API would send) and its whole answer. */
function rawRequest(port: number, head: Buffer): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.end(head));
    const chunks: Buffer[] = [];
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('close', () => resolve(Buffer.concat(chunks).toString('latin1')));
  });
}

describe('the sandbox shows client text escaped', () => {
  it('a header with a C1 control (CSI) is escaped in the 400 that quotes it', async () => {
    const sandbox = await startQuietSandbox();
    try {
      const body = '{}';
      const head = Buffer.concat([
        Buffer.from('POST /api/v1/native/envelopes/create HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Sandbox-Fault: a'),
        Buffer.from([0x9b]),
        Buffer.from(
          `2Jb\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`,
        ),
      ]);
      const answer = await rawRequest(sandbox.port, head);
      expect(answer).toContain('400 Bad Request');
      const json = answer.slice(answer.indexOf('\r\n\r\n') + 4);
      expect(json).not.toMatch(/[\u0080-\u009f]/);
      const { message } = JSON.parse(json) as { message: string };
      expect(message).toContain('(got "a\\x9b2Jb")');
    } finally {
      await sandbox.close();
    }
  });

  it('a long path is cut to 200 characters in the log, then escaped', async () => {
    const lines: string[] = [];
    const sandbox = await startQuietSandbox({ log: (line) => lines.push(line) });
    try {
      await fetch(`${sandbox.url}/${'x'.repeat(300)}`);
      const logged = lines.find((line) => line.startsWith('GET /x'));
      expect(logged).toContain(`GET /${'x'.repeat(199)}… 404`);
    } finally {
      await sandbox.close();
    }
  });
});
