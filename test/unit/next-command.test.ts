// The command printed to run next, read back as a user's shell and esign would read it: the same
// options come out that went in.
import { execFileSync } from 'node:child_process';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { buildProgram } from '../../src/cli.js';
import { type NextCommandOptions, nextCommand } from '../../src/commands/envelope/next-command.js';
import { durationText, parseRate, rateText } from '../../src/text/units.js';
import { createTestContext } from '../helpers/context.js';

/**
 * What a POSIX shell makes of printed command lines, without their leading `esign`: one shell for
 * them all (a shell a line would make this test slow); each word ends with a NUL, each line with
 * \x01 and a NUL (no word here holds \x01).
 */
function shellWords(commandLines: string[]): string[][] {
  const script = commandLines.map((line) => `printf '%s\\0' ${line.replace(/^esign /, '')}; printf '\\1\\0'`);
  // bash: a word holding a character that acts on a terminal is printed as $'…' (src/text/shell.ts),
  // which bash, zsh and ksh read back and dash does not.
  const out = execFileSync('bash', ['-c', script.join('\n')]).toString('utf8');
  return out
    .split('\u0001\0')
    .slice(0, -1)
    .map((words) => words.split('\0').slice(0, -1));
}

const STOP = new Error('parsed');

/** The options the CLI's own parser (commander, then the command's zod schema) makes of `words`. */
async function parseBack(words: string[]): Promise<Record<string, unknown>> {
  let parsed: Record<string, unknown> | undefined;
  const program = buildProgram(createTestContext(), {
    onOptions: (options) => {
      parsed = options as Record<string, unknown>;
      throw STOP;
    },
    onResult: () => {},
  });
  await program.parseAsync(words, { from: 'user' }).catch((error: unknown) => {
    if (error !== STOP) throw error;
  });
  if (!parsed) throw new Error('the command did not parse');
  return parsed;
}

// Text as a user could type it: any character but NUL (which no argument can hold) and \x01 (the
// test's separator).
const text = fc
  .string({ unit: 'grapheme', maxLength: 12 })
  .filter((value) => !value.includes('\0') && !value.includes('\u0001'));
const maybe = <T>(arbitrary: fc.Arbitrary<T>) => fc.option(arbitrary, { nil: undefined });
const rate = fc
  .tuple(
    fc.integer({ min: 1, max: 100_000 }),
    maybe(fc.integer({ min: 1, max: 90 })),
    fc.constantFrom('ms', 's', 'sec', 'm', 'min', 'h'),
  )
  .map(([count, times, unit]) => parseRate(`${count}/${times ?? ''}${unit}`))
  .filter((value) => value !== undefined);

const options: fc.Arbitrary<NextCommandOptions> = fc.record({
  file: fc.oneof(text, fc.constant('-'), fc.constant('-starts-with-a-dash.csv')),
  format: maybe(fc.constantFrom('jsonl', 'csv')),
  template: maybe(text),
  data: fc.array(text, { maxLength: 3 }),
  set: fc.array(text, { maxLength: 3 }),
  expiresInDays: maybe(text),
  profile: maybe(text),
  baseUrl: maybe(text),
  timeout: maybe(text),
  ciOutput: maybe(fc.constantFrom('auto', 'github', 'none')),
  concurrency: maybe(fc.integer({ min: 1, max: 64 })),
  maxRetries: fc.integer({ min: 0, max: 20 }),
  rate: maybe(rate),
  maxRateWait: fc.integer({ min: 0, max: 48 * 3_600_000 }),
  allowDuplicates: fc.constantFrom(undefined, true),
  keepGoing: fc.constantFrom(undefined, true),
  // An empty --output is refused before anything runs ("must be a file path"): no run prints it.
  output: maybe(text.filter((value) => value !== '')),
});

describe('nextCommand', () => {
  it('parsed back through a shell and the CLI gives the same options, and --resume', async () => {
    const samples = fc.sample(options, 200);
    const wordsOf = shellWords(samples.map((given) => nextCommand(given)));
    expect(wordsOf).toHaveLength(samples.length);
    for (const [index, given] of samples.entries()) {
      const parsed = await parseBack(wordsOf[index] as string[]);
      const defined = (entries: [string, unknown][]) =>
        Object.fromEntries(entries.filter(([, value]) => value !== undefined));
      const kept = defined(Object.keys(given).map((key) => [key, parsed[key]]));
      expect(kept, nextCommand(given)).toEqual(defined(Object.entries(given)));
      expect(parsed.resume).toBe(true);
      expect(parsed.retryUnknown).toBeUndefined();
    }
  });

  it('--retry-unknown comes after --resume when asked', async () => {
    const command = nextCommand({ file: 'hires.csv', output: 'out.jsonl' }, ['--resume', '--retry-unknown']);
    expect(command).toBe('esign envelope batch hires.csv --output out.jsonl --resume --retry-unknown');
    const parsed = await parseBack(shellWords([command])[0] as string[]);
    expect(parsed.retryUnknown).toBe(true);
  });

  it('writes rates and durations as the help shows them', () => {
    expect(rateText({ count: 100, perMs: 60_000 })).toBe('100/min');
    expect(rateText({ count: 5, perMs: 1000 })).toBe('5/s');
    expect(rateText({ count: 20, perMs: 30_000 })).toBe('20/30s');
    expect(rateText({ count: 1000, perMs: 3_600_000 })).toBe('1000/h');
    expect(durationText(15 * 60_000)).toBe('15m');
    expect(durationText(90_000)).toBe('90s');
    expect(durationText(1500)).toBe('1500ms');
    expect(durationText(0)).toBe('0s');
  });
});
