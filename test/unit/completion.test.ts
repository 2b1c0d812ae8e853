// What `esign __complete` offers, word by word, over the real command tree.
import { describe, expect, it } from 'vitest';
import { buildProgram, describeTree } from '../../src/cli.js';
import { type Completion, complete, formatCompletion } from '../../src/commands/completion.js';
import { createTestContext } from '../helpers/context.js';

const ctx = createTestContext();
const tree = describeTree(buildProgram(ctx, { onOptions: () => ctx, onResult: () => {} }));
const offer = (...words: string[]): Completion => complete(tree, words, ['alpha', 'sandbox']);
const values = (completion: Completion) => completion.words.map((w) => w.value);

describe('completion', () => {
  it('offers top-level commands, and subcommands at depth 2, by prefix', () => {
    expect(values(offer(''))).toEqual(expect.arrayContaining(['login', 'envelope', 'config', 'help']));
    expect(values(offer('envelope', 'cr'))).toEqual(['create']);
    expect(values(offer('config', 's'))).toEqual(['set']);
    expect(values(offer('whoami', ''))).toEqual([]);
  });

  it('offers the flags of the command reached, with the global ones, past global flags and their values', () => {
    expect(values(offer('envelope', 'create', '--tem'))).toEqual(['--template']);
    expect(values(offer('--profile', 'alpha', 'envelope', 'batch', 'x.csv', '--con'))).toEqual([
      '--concurrency',
    ]);
    expect(values(offer('envelope', 'create', '--'))).toContain('--profile');
    expect(values(offer('envelope', 'create', '--'))).not.toContain('--version');
  });

  it('offers values: profiles, choices and files where a file is expected', () => {
    expect(values(offer('--profile', ''))).toEqual(['alpha', 'sandbox']);
    expect(values(offer('status', '--profile', 's'))).toEqual(['sandbox']);
    expect(values(offer('envelope', 'batch', 'x', '--format', ''))).toEqual(['jsonl', 'csv']);
    expect(values(offer('completion', ''))).toEqual(['bash', 'zsh', 'fish']);
    expect(values(offer('config', 'get', ''))).toEqual(['base_url']);
    expect(offer('envelope', 'create', '--data', '').files).toBe(true);
    expect(offer('envelope', 'batch', '').files).toBe(true);
    expect(offer('envelope', 'batch', 'x.csv', '--output', 'r').files).toBe(true);
    expect(offer('envelope', 'create', '--name', '').files).toBe(false);
  });

  it('offers commands and topics after help', () => {
    expect(values(offer('help', 'e'))).toEqual(['envelope', 'environment', 'exit-codes']);
    expect(values(offer('help', 'envelope', ''))).toEqual(['create', 'batch']);
  });

  it('prints one candidate a line, descriptions after a tab, and the file directive last', () => {
    expect(
      formatCompletion({ words: [{ value: 'set', description: 'Store\ta setting' }], files: false }),
    ).toBe('set\tStore a setting\n:none\n');
    expect(formatCompletion({ words: [], files: true })).toBe(':files\n');
  });
});
