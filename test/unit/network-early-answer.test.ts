import { connect, createServer, type Socket } from 'node:net';
import { describe, expect, it } from 'vitest';
import { keepReadingAfterWriteError } from '../../src/transport/early-answer.js';

/**
 * A connected client socket to a server that writes `answer` and closes; `answered` settles once the
 * server has handed the answer and its close to the system (on loopback: at the client's end).
 */
async function answeredSocket(
  answer: string,
  guard: boolean,
): Promise<{ client: Socket; close: () => void; answered: Promise<void> }> {
  let answeredNow = () => {};
  const answered = new Promise<void>((resolve) => {
    answeredNow = resolve;
  });
  const server = createServer((socket) => {
    socket.on('error', () => {});
    socket.end(answer, answeredNow);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  const client = connect(port, '127.0.0.1');
  client.pause(); // as undici reads: on 'readable', with read()
  if (guard) keepReadingAfterWriteError(client);
  await new Promise<void>((resolve) => client.once('connect', resolve));
  return { client, close: () => server.close(), answered };
}

const writeError = () => Object.assign(new Error('write EPIPE'), { code: 'EPIPE', syscall: 'write' });

/** What a reader that waits for 'readable' (undici's way) gets before the socket closes, and the error. */
function readUntilClosed(client: Socket): Promise<{ text: string; error: unknown }> {
  let text = '';
  let error: unknown;
  client.on('readable', () => {
    for (let chunk = client.read(); chunk !== null; chunk = client.read()) text += chunk;
  });
  client.on('error', (e) => {
    error = e;
  });
  return new Promise((resolve) => client.on('close', () => resolve({ text, error })));
}

describe('keepReadingAfterWriteError', () => {
  it('after a failed write, the answer already sent is still read, then the write error is reported', async () => {
    const { client, close, answered } = await answeredSocket('HTTP/1.1 413 Payload Too Large\r\n\r\n', true);
    await answered; // the answer and the close are in
    const failure = writeError();
    client.destroy(failure); // what Node does when a write fails
    const { text, error } = await readUntilClosed(client);
    close();
    expect(text).toBe('HTTP/1.1 413 Payload Too Large\r\n\r\n');
    expect(error).toBe(failure);
  });

  it('without it, Node drops the unread answer (the failure this guards against)', async () => {
    const { client, close, answered } = await answeredSocket('HTTP/1.1 413 Payload Too Large\r\n\r\n', false);
    await answered;
    client.destroy(writeError());
    const { text } = await readUntilClosed(client);
    close();
    expect(text).toBe('');
  });

  it('any other destroy goes through at once', async () => {
    const { client, close } = await answeredSocket('x', true);
    client.on('error', () => {});
    client.destroy(new Error('deadline'));
    expect(client.destroyed).toBe(true);
    close();
  });
});
