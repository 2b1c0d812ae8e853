import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { type OutputStream, redactingStream } from '../../src/context.js';

describe('redactingStream', () => {
  it('masks registered secrets', () => {
    const sink = new PassThrough();
    const out = redactingStream(
      Object.assign(sink, { isTTY: false }) as unknown as OutputStream,
      new Set(['tok_secret_123']),
    );
    out.write('token tok_secret_123 here\n');
    expect(String(sink.read())).toBe('token [redacted] here\n');
  });

  it('tells when a slow reader is behind, and when it has caught up', async () => {
    const pipe = new PassThrough({ highWaterMark: 16 });
    const out = redactingStream(Object.assign(pipe, { isTTY: false }) as unknown as OutputStream, new Set());
    expect(out.drained?.()).toBeUndefined();
    out.write('x'.repeat(64));
    const behind = out.drained?.();
    expect(behind).toBeInstanceOf(Promise);
    let caughtUp = false;
    void behind?.then(() => {
      caughtUp = true;
    });
    await new Promise((resolve) => setImmediate(resolve));
    expect(caughtUp).toBe(false);
    pipe.resume(); // the reader reads
    await behind;
    expect(caughtUp).toBe(true);
    expect(out.drained?.()).toBeUndefined();
  });
});
