// Accessible mode, decided once (io/terminal.ts) and followed by the spinner and the batch's
// progress: plain lines, at a slow fixed pace, on a clock the test moves (vitest's fake timers).
import { PassThrough } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { RateLimiter } from '../../src/batch/pacing/rate-limiter.js';
import { PlainPrompter, STOPPED } from '../../src/io/plain-prompts.js';
import { ACCESSIBLE_PROGRESS_EVERY_MS, startProgress } from '../../src/io/progress.js';
import { STILL_WORKING_EVERY_MS, startSpinner } from '../../src/io/spinner.js';
import { accessibleFromEnv, decideTerminal, drawable } from '../../src/io/terminal.js';
import { createTestContext } from '../helpers/context.js';

const tty = { isTTY: true, columns: 80 };
const pipe = { isTTY: false, columns: undefined };

describe('the accessible-mode decision', () => {
  it.each([
    [{}, undefined],
    [{ ACCESSIBLE: '1' }, true],
    [{ ACCESSIBLE: 'true' }, true],
    [{ ACCESSIBLE: '0' }, false],
    [{ ACCESSIBLE: '' }, false],
    [{ ESIGN_ACCESSIBLE: '1' }, true],
    [{ ACCESSIBLE: '1', ESIGN_ACCESSIBLE: '0' }, false],
    [{ ACCESSIBLE: '0', ESIGN_ACCESSIBLE: 'yes' }, true],
  ])('%j: %s', (env, expected) => {
    expect(accessibleFromEnv(env)).toBe(expected);
  });

  it('the environment wins over the config key, which is read only when asked', () => {
    let asked = 0;
    const stored = () => {
      asked++;
      return true;
    };
    const fromConfig = decideTerminal({ stdout: tty, stderr: tty }, {}, 'linux', stored);
    expect(asked).toBe(0);
    expect(fromConfig.accessible).toBe(true);
    expect(fromConfig.animations).toBe(false);
    expect(fromConfig.plainProgress).toBe(true);
    expect(fromConfig.accessible).toBe(true);
    expect(asked).toBe(1);
    const off = decideTerminal({ stdout: tty, stderr: tty }, { ESIGN_ACCESSIBLE: '0' }, 'linux', stored);
    expect(off.accessible).toBe(false);
    expect(off.animations).toBe(true);
    expect(asked).toBe(1);
  });

  it('plain progress lines only where a person reads stderr: not a pipe, not CI', () => {
    const env = { ACCESSIBLE: '1' };
    expect(decideTerminal({ stdout: tty, stderr: pipe }, env, 'linux').plainProgress).toBe(false);
    expect(decideTerminal({ stdout: tty, stderr: tty }, { ...env, CI: 'true' }, 'linux').plainProgress).toBe(
      false,
    );
    expect(
      decideTerminal({ stdout: pipe, stderr: tty }, { ...env, TERM: 'dumb' }, 'linux').plainProgress,
    ).toBe(true);
  });

  it('symbols that carry meaning become words; a mark beside the same words goes', () => {
    const text = '✓ Token stored. 3/10 done · 1 failed · Settings → API Tokens → Create New Token';
    expect(drawable({ unicode: true, accessible: true }, text)).toBe(
      'Token stored. 3/10 done; 1 failed; Settings, then API Tokens, then Create New Token',
    );
    expect(drawable({ unicode: false, accessible: true }, text)).toBe(
      'Token stored. 3/10 done; 1 failed; Settings, then API Tokens, then Create New Token',
    );
    expect(drawable({ unicode: true, accessible: false }, text)).toBe(text);
  });
});

describe('the spinner and the progress line in accessible mode', () => {
  beforeEach(() => {
    vi.useFakeTimers({ now: new Date('2026-11-22T10:00:00Z') });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('a spinner is a line at the start, one every 30 s, one at the end', async () => {
    const ctx = createTestContext({ stderrTTY: true, env: { ACCESSIBLE: '1' } });
    const spinner = await startSpinner({ ...ctx, now: () => new Date() }, 'Creating envelope…');
    expect(ctx.err.text).toBe('Creating envelope.\n');
    vi.advanceTimersByTime(STILL_WORKING_EVERY_MS * 2 + 1000);
    spinner.setText('ignored: nothing is redrawn');
    spinner.stop('failed');
    spinner.stop('done');
    expect(ctx.err.text).toBe(
      'Creating envelope.\nStill working: creating envelope (30 s so far).\nStill working: creating envelope (60 s so far).\nCreating envelope: failed.\n',
    );
  });

  it("the batch's progress is a start line, then a plain line every 30 s whatever settles", async () => {
    const ctx = createTestContext({ stderrTTY: true, env: { ACCESSIBLE: '1' } });
    const limiter = new RateLimiter(Date.now());
    const progress = await startProgress(
      { ...ctx, now: () => new Date() },
      { total: 3, settled: 0, limiter, clock: Date.now },
    );
    expect(ctx.err.text).toBe('Sending 3 records; a progress line follows every 30 seconds.\n');
    progress.update({ created: 1, failed: 0, unknown: 0, skipped: 0 });
    progress.update({ created: 2, failed: 0, unknown: 0, skipped: 0 });
    vi.advanceTimersByTime(ACCESSIBLE_PROGRESS_EVERY_MS - 1);
    expect(ctx.err.text.split('\n')).toHaveLength(2);
    vi.advanceTimersByTime(1);
    progress.update({ created: 3, failed: 0, unknown: 0, skipped: 0 });
    vi.advanceTimersByTime(ACCESSIBLE_PROGRESS_EVERY_MS);
    progress.stop();
    vi.advanceTimersByTime(ACCESSIBLE_PROGRESS_EVERY_MS * 3);
    const lines = ctx.err.text.trimEnd().split('\n');
    expect(lines).toHaveLength(3);
    expect(lines[1]).toMatch(/^progress: 2\/3 done · 0 failed or unknown · /);
    expect(lines[2]).toMatch(/^progress: 3\/3 done · /);
  });
});

describe('plain questions', () => {
  function prompter() {
    const input = new PassThrough();
    const output = new PassThrough();
    let said = '';
    output.on('data', (chunk) => {
      said += String(chunk);
    });
    const controller = new AbortController();
    return {
      input,
      controller,
      said: () => said,
      plain: new PlainPrompter(input, output, controller.signal),
    };
  }

  it('a choice by number, answers typed ahead kept for the next question, yes/no with its default', async () => {
    const { input, plain, said } = prompter();
    input.write('3\n2\nAda\n\n');
    const choice = await plain.choose('Which template?', [
      { value: 'a', label: 'offer-letter', hint: '01J…' },
      { value: 'b', label: 'nda' },
    ]);
    expect(choice).toBe('b');
    expect(await plain.text('Name?', () => undefined)).toBe('Ada');
    expect(await plain.confirm('Send it?', true)).toBe(true);
    expect(said()).toBe(
      'Which template? Type its number, 1 to 2, then press Enter.\n  1: offer-letter, 01J…\n  2: nda\n' +
        "'3' is not one of the numbers 1 to 2. Try again.\n" +
        'Which template? Type its number, 1 to 2, then press Enter.\n  1: offer-letter, 01J…\n  2: nda\n' +
        'Name?\nSend it? Type y for yes or n for no, then press Enter (Enter alone: yes).\n',
    );
    plain.close();
  });

  it("the end of input or the run's signal stops a question", async () => {
    const first = prompter();
    const asked = first.plain.text('Name?', () => undefined);
    first.input.end();
    expect(await asked).toBe(STOPPED);
    const second = prompter();
    const waiting = second.plain.confirm('Send it?', false);
    await new Promise((resolve) => setImmediate(resolve));
    second.controller.abort();
    expect(await waiting).toBe(STOPPED);
  });
});
