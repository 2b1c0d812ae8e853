// What `esign __complete` offers, word by word, over the real command tree.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  type Completion,
  complete,
  formatCompletion,
  type ValueLookup,
} from '../../src/commands/complete.js';
import { commandTree } from '../../src/commands/table.js';
import { createTestContext, runCli } from '../helpers/context.js';

const _ctx = createTestContext();
const tree = commandTree();
/** Profiles alpha and sandbox; template names that depend on the --profile given on the line. */
const lookup: ValueLookup = (source, line) =>
  source === 'profile'
    ? [{ value: 'alpha' }, { value: 'sandbox' }]
    : [{ value: 'offer-letter' }, { value: line.flag('--profile') === 'alpha' ? 'nda-alpha' : 'nda' }];
const offer = (...words: string[]): Completion => complete(tree, words, lookup);
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
    expect(values(offer('config', 'get', ''))).toEqual(['base_url', 'accessible', 'token_age_reminder']);
    expect(offer('envelope', 'create', '--data', '').files).toBe(true);
    expect(offer('envelope', 'batch', '').files).toBe(true);
    expect(offer('envelope', 'batch', 'x.csv', '--output', 'r').files).toBe(true);
    expect(offer('envelope', 'create', '--name', '').files).toBe(false);
  });

  it('completes --flag=value as one word: choices, profiles and template names after the =', () => {
    expect(values(offer('envelope', 'batch', 'x', '--format='))).toEqual(['--format=jsonl', '--format=csv']);
    expect(values(offer('envelope', 'batch', 'x', '--format=c'))).toEqual(['--format=csv']);
    expect(values(offer('--profile=s'))).toEqual(['--profile=sandbox']);
    expect(values(offer('envelope', 'create', '--template=off'))).toEqual(['--template=offer-letter']);
    expect(offer('envelope', 'create', '--data=de').files).toBe(true);
    expect(offer('envelope', 'create', '--name=A')).toEqual({ words: [], files: false });
    expect(offer('envelope', 'create', '--dry-run=x')).toEqual({ words: [], files: false });
  });

  it('offers the template names in force for the profile given on the line, in either form', () => {
    expect(values(offer('envelope', 'create', '--template', ''))).toEqual(['offer-letter', 'nda']);
    expect(values(offer('envelope', 'batch', 'x.csv', '--template', 'n'))).toEqual(['nda']);
    expect(values(offer('--profile', 'alpha', 'envelope', 'create', '--template', 'n'))).toEqual([
      'nda-alpha',
    ]);
    expect(values(offer('envelope', 'create', '--profile=alpha', '--template=n'))).toEqual([
      '--template=nda-alpha',
    ]);
  });

  it('offers the sandbox only the global flags that mean something to it', () => {
    const flags = values(offer('sandbox', '--'));
    expect(flags).toEqual(
      expect.arrayContaining(['--port', '--rate-limit', '--verbose', '--json', '--help']),
    );
    expect(flags).not.toContain('--profile');
    expect(flags).not.toContain('--base-url');
    expect(flags).not.toContain('--timeout');
    expect(values(offer('envelope', 'create', '--'))).toEqual(
      expect.arrayContaining(['--profile', '--base-url', '--timeout']),
    );
  });

  it('__complete offers the names of .esign.json for the profile in force, with their ids', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'esign-complete-'));
    writeFileSync(
      join(folder, '.esign.json'),
      JSON.stringify({
        templates: { 'offer-letter': '01JD7X4ZQ8G1N6RVS0Y2MBKT3E' },
        profiles: { staging: { templates: { nda: '01JD7Y4ZQ8G1N6RVS0Y2MBKT3F' } } },
      }),
    );
    const plain = await runCli(['__complete', '--', 'envelope', 'create', '--template', ''], { cwd: folder });
    expect(plain.stdout).toBe('offer-letter\t01JD7X4ZQ8G1N6RVS0Y2MBKT3E\n:none\n');
    const staging = await runCli(['__complete', '--', 'envelope', 'create', '--template='], {
      cwd: folder,
      env: { ESIGN_PROFILE: 'staging' },
    });
    expect(staging.stdout).toBe(
      '--template=nda\t01JD7Y4ZQ8G1N6RVS0Y2MBKT3F\n--template=offer-letter\t01JD7X4ZQ8G1N6RVS0Y2MBKT3E\n:none\n',
    );
    writeFileSync(join(folder, '.esign.json'), '{"templates": ');
    const broken = await runCli(['__complete', '--', 'envelope', 'create', '--template', ''], {
      cwd: folder,
    });
    expect(broken).toMatchObject({ code: 0, stdout: ':none\n', stderr: '' });
  });

  it("__complete offers the chosen template's fields for --set, each with a trailing =", async () => {
    const folder = mkdtempSync(join(tmpdir(), 'esign-complete-'));
    writeFileSync(
      join(folder, '.esign.json'),
      JSON.stringify({
        templates: {
          'offer-letter': {
            id: '01JD7X4ZQ8G1N6RVS0Y2MBKT3E',
            fields: {
              start_date: { required: true, example: '2026-12-01' },
              company: { required: true, description: 'Legal name\u001b[2J of the employer' },
              salary: {},
            },
          },
          nda: '01JD7Y4ZQ8G1N6RVS0Y2MBKT3F',
        },
      }),
    );
    const tab = async (...words: string[]) =>
      (await runCli(['__complete', '--', ...words], { cwd: folder })).stdout;
    expect(await tab('envelope', 'create', '--template', 'offer-letter', '--set', '')).toBe(
      'company=\trequired; Legal name\\x1b[2J of the employer\n' +
        'salary=\toptional\n' +
        'start_date=\trequired; e.g. 2026-12-01\n:none\n',
    );
    // By id too (a name declares fields for it), in a batch, inline, by prefix.
    expect(await tab('envelope', 'batch', 'x.csv', '--template=01JD7X4ZQ8G1N6RVS0Y2MBKT3E', '--set=s')).toBe(
      '--set=salary=\toptional\n--set=start_date=\trequired; e.g. 2026-12-01\n:none\n',
    );
    // Fields already given are left out, in either form.
    expect(
      await tab(
        'envelope',
        'create',
        '--set=company=Acme',
        '--template',
        'offer-letter',
        '--set',
        'salary=1',
        '--set',
        '',
      ),
    ).toBe('start_date=\trequired; e.g. 2026-12-01\n:none\n');
    // The value after the = has nothing to offer, nor does a template without declared fields or none.
    for (const words of [
      ['envelope', 'create', '--template', 'offer-letter', '--set', 'company='],
      ['envelope', 'create', '--template', 'offer-letter', '--set', 'company=Ac'],
      ['envelope', 'create', '--template', 'nda', '--set', ''],
      ['envelope', 'create', '--set', ''],
      ['envelope', 'create', '--template', 'missing', '--set', ''],
    ]) {
      expect(await tab(...words)).toBe(':none\n');
    }
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

  it('offers only plain words from files: a profile or field name a shell would run is left out', () => {
    const hostile: ValueLookup = () => [
      { value: '$(id)=' },
      { value: '`id`=' },
      { value: 'a;id=' },
      { value: 'start date=' },
      { value: '-rf=' },
      { value: 'start_date=' },
      { value: 'prénom=' },
      { value: 'v1.2-x' },
    ];
    expect(values(complete(tree, ['envelope', 'create', '--set', ''], hostile))).toEqual([
      'start_date=',
      'prénom=',
      'v1.2-x',
    ]);
    expect(values(complete(tree, ['--profile', ''], hostile))).toEqual(['start_date=', 'prénom=', 'v1.2-x']);
  });
});
