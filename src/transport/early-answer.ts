// A server may answer before it has read the whole request (413 for a body it will not take) and
// close the connection. The rest of the upload then fails (EPIPE, or ECONNRESET on a write), and
// Node destroys the socket at once, often before the answer already waiting in the socket's
// receive buffer has been read: undici then reports a broken connection after the request was
// sent ("outcome unknown"), and the 413 is lost. Measured: a 60 MB body to the sandbox under CPU
// load lost the 413 in 5 of 20 runs.
//
// A socket from this connector keeps reading after such a write error: the server's answer is
// parsed as usual, and the write error is reported only once the server's end has been read (or
// when something else ends the socket: the answer completing, the request's deadline).
import type { Socket } from 'node:net';
import type { buildConnector } from 'undici';

type Connector = buildConnector.connector;

export function readAnswerAfterWriteError(connector: Connector): Connector {
  return (options, callback) =>
    connector(options, (...args) => {
      const socket = args[1];
      if (socket) keepReadingAfterWriteError(socket as Socket);
      callback(...args);
    });
}

function isWriteFailure(error: unknown): boolean {
  const { code, syscall } = (error ?? {}) as NodeJS.ErrnoException;
  return syscall === 'write' && (code === 'EPIPE' || code === 'ECONNRESET');
}

export function keepReadingAfterWriteError(socket: Socket): void {
  const destroy = socket.destroy;
  let deferred = false;
  socket.destroy = function (this: Socket, error?: Error) {
    if (deferred || !isWriteFailure(error) || this.readableEnded) return destroy.call(this, error);
    deferred = true;
    // Node marked the reading side as failed as well, which stops it announcing the data that
    // is still to be read: undo that for this one error.
    const readable = (this as unknown as { _readableState?: { errored: unknown } })._readableState;
    if (readable && readable.errored === error) readable.errored = null;
    this.once('end', () => {
      if (!this.destroyed) destroy.call(this, error);
    });
    return this;
  } as Socket['destroy'];
}
