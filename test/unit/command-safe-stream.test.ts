import { describe, expect, it } from 'vitest';
import { writeCommands } from '../../src/ci/github-actions.js';
import { commandSafeStream, redactingStream } from '../../src/context.js';
import { BufferStream } from '../helpers/context.js';

const TOKEN = 'tok_live_9c2f4e6a8b0d1f3e5a7c9e1b3d5f7a9c';

/** stderr as the process builds it: redaction, then the command guard. */
function processStderr() {
  const out = new BufferStream(false, 37);
  const secrets = new Set([TOKEN]);
  return { out, stream: redactingStream(commandSafeStream(out, { anywhere: true }), secrets) };
}

describe('the process streams: redaction, then the workflow-command guard', () => {
  it("esign's own commands pass as written (redacted), each on a line of its own; other text cannot act as one", () => {
    const { out, stream } = processStderr();
    stream.write('  ::stop-commands::x: bad\nprogress 3/10');
    writeCommands(stream, `::add-mask::https://s.example/${TOKEN}\n`);
    stream.write('::error::fake\n');
    expect(out.text).toBe(
      '  :\\x3astop-commands::x: bad\nprogress 3/10\n::add-mask::https://s.example/[redacted]\n:\\x3aerror::fake\n',
    );
  });

  it('keeps what the wrapped stream says: TTY-ness, width as it changes, failures, flushing', async () => {
    const out = new BufferStream(true, 80);
    const stream = redactingStream(commandSafeStream(out, { anywhere: false }), new Set());
    expect(stream.isTTY).toBe(true);
    (out as { columns: number }).columns = 120;
    expect(stream.columns).toBe(120);
    expect(stream.failure?.()).toBeUndefined();
    await expect(stream.flushed?.()).resolves.toBeUndefined();
  });
});
