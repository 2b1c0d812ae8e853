// An option a command does not have: exit 2, nothing read or sent, and "did you mean" from the one
// suggestion module, naming the commands that do have it.
import { describe, expect, it } from 'vitest';
import { closest, unknownOptionAdvice } from '../../src/text/suggest.js';
import { runCli } from '../helpers/context.js';

describe('unknown options', () => {
  it.each([
    [
      ['envelope', 'batch', 'nowhere.csv', '--rate-limit', '5/s'],
      "error: Unknown option '--rate-limit' for 'esign envelope batch'. '--rate-limit' is an option of 'esign sandbox'; did you mean '--rate'?\nhint: Run `esign envelope batch --help` to see its flags and examples.\n",
    ],
    [
      ['sandbox', '--rate=5/s'],
      "error: Unknown option '--rate' for 'esign sandbox'. '--rate' is an option of 'esign envelope batch'; did you mean '--rate-limit'?\nhint: Run `esign sandbox --help` to see its flags and examples.\n",
    ],
    [
      ['status', '--template', 'x'],
      "error: Unknown option '--template' for 'esign status'. '--template' is an option of 'esign envelope create', 'esign envelope batch', not of this command.\nhint: Run `esign status --help` to see its flags and examples.\n",
    ],
    [
      ['envelope', 'create', '--expires', '3'],
      "error: Unknown option '--expires' for 'esign envelope create'. Did you mean '--expires-in-days'?\nhint: Run `esign envelope create --help` to see its flags and examples.\n",
    ],
    [
      ['config', 'list', '--vrebose'],
      "error: Unknown option '--vrebose' for 'esign config list'. Did you mean '--verbose'?\nhint: Run `esign config list --help` to see its flags and examples.\n",
    ],
  ])('%j', async (argv, stderr) => {
    const result = await runCli(argv);
    expect(result).toMatchObject({ code: 2, stdout: '', stderr });
  });

  it('keeps the hidden --token of login out of the advice, and --version to the top', async () => {
    const token = await runCli(['status', '--token', 'x']);
    expect(token.stderr).toMatch(/^error: Unknown option '--token' for 'esign status'\.\n/);
    const version = await runCli(['status', '--versoin']);
    expect(version.stderr).not.toContain("'--version'");
  });

  it('says it in the --json error object too', async () => {
    const result = await runCli(['envelope', 'create', '--json', '--rate-limit', '5']);
    expect(result.code).toBe(2);
    expect(JSON.parse(result.stderr).error.message).toBe(
      "Unknown option '--rate-limit' for 'esign envelope create'. '--rate-limit' is an option of 'esign sandbox', not of this command.",
    );
  });
});

describe('suggestions', () => {
  it('prefers one edit, then the same first words, then a third of the length', () => {
    expect(closest('--rate-limit', ['--rate', '--resume'])).toBe('--rate');
    expect(closest('--rate', ['--state', '--rate-limit'])).toBe('--rate-limit');
    expect(closest('--stat', ['--state', '--rate-limit'])).toBe('--state');
    expect(closest('--concurency', ['--concurrency'])).toBe('--concurrency');
    expect(closest('--xyz', ['--rate'])).toBeUndefined();
    // Whole words only: "--ra" is not the start of a word of --rate-limit's.
    expect(closest('--r', ['--rate-limit'])).toBeUndefined();
  });

  it('names at most three commands that have the option', () => {
    expect(unknownOptionAdvice('--json', ['--help'], ['a', 'b', 'c', 'd', 'e'])).toBe(
      " '--json' is an option of 'a', 'b', 'c' (and 2 more), not of this command.",
    );
    expect(unknownOptionAdvice('--nope', ['--help'], [])).toBe('');
  });
});
