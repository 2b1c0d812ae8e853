// A plain command line is read from the command table without commander (src/plain-line.ts): for
// every line it reads, commander must read the same command, the same raw options and the same
// inherited flags. Lines are made at random from the table itself, for every command that runs,
// with the words that trip a parser (dash-led values, `--`, `=`, short flags run together, repeats,
// conflicts, choices not allowed, too many or too few positional words).
import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
import type { CommandDecl, FlagDecl } from '../../src/command-types.js';
import { GLOBAL_FLAGS } from '../../src/commands/global-flags.js';
import { ROOT } from '../../src/commands/table.js';
import { plainLine } from '../../src/plain-line.js';
import { createTestContext } from '../helpers/context.js';

/** What commander hands to the step every command shares: caught here instead of run. */
const handed = vi.hoisted(() => ({ calls: [] as unknown[][] }));
vi.mock('../../src/command-run.js', () => ({
  runDeclared: async (...args: unknown[]) => {
    handed.calls.push(args);
  },
}));
const { buildProgram } = await import('../../src/cli.js');

interface Read {
  path: string[];
  raw: Record<string, unknown>;
  inherited: string[];
}

/** Commander's reading of `argv`, or the error it ends with. */
async function commanderReads(argv: string[]): Promise<Read | { error: string }> {
  handed.calls.length = 0;
  const ctx = createTestContext();
  const program = buildProgram(ctx, { onOptions: () => ctx, onResult: () => {} }, argv);
  try {
    await program.parseAsync([...argv], { from: 'user' });
  } catch (error) {
    return { error: String((error as Error).message) };
  }
  const [path, raw, inherited] = handed.calls[0] ?? [];
  if (!path) return { error: 'nothing ran' };
  return {
    path: (path as CommandDecl[]).map((decl) => decl.name),
    raw: raw as Record<string, unknown>,
    inherited: (inherited as FlagDecl[]).map((flag) => flag.flag),
  };
}

function plainReads(argv: string[]): Read | undefined {
  const plain = plainLine(ROOT, GLOBAL_FLAGS, argv);
  return (
    plain && {
      path: plain.path.map((decl) => decl.name),
      raw: plain.raw,
      inherited: plain.inherited.map((flag) => flag.flag),
    }
  );
}

/** Every command that runs, with the words that reach it (a name or an alias at each level). */
function runnable(decl: CommandDecl, above: CommandDecl[] = []): { path: CommandDecl[] }[] {
  const path = [...above, decl];
  return [
    ...(decl.load ? [{ path }] : []),
    ...(decl.subcommands ?? []).flatMap((child) => runnable(child, path)),
  ];
}
const COMMANDS = (ROOT.subcommands as readonly CommandDecl[]).flatMap((decl) => runnable(decl, [ROOT]));

const value = fc.oneof(
  fc.constantFrom('a', 'Ada Lovelace', '', '-', '=', 'a=b', '1', '15m', '100/min', 'jsonl', 'csv', 'help'),
  fc.constantFrom('-x', '--json', '-q', '--', '--name', '-1'),
  fc.string({ maxLength: 6 }),
);

/** One word (or a flag and its value) for a command's line. */
function word(flags: readonly FlagDecl[]): fc.Arbitrary<string[]> {
  const flag = fc.constantFrom(...flags);
  // A command with no short flag is given a long one instead.
  const shorts = flags.filter((f) => f.short !== undefined);
  const short = shorts.length > 0 ? fc.constantFrom(...shorts) : flag;
  return fc.oneof(
    {
      weight: 6,
      arbitrary: fc.tuple(flag, value).map(([f, v]) => (f.kind === 'boolean' ? [f.flag] : [f.flag, v])),
    },
    { weight: 2, arbitrary: fc.tuple(flag, value).map(([f, v]) => [`${f.flag}=${v}`]) },
    {
      weight: 2,
      arbitrary: fc
        .tuple(short, value)
        .map(([f, v]) => [f.short ?? f.flag, ...(f.kind === 'boolean' ? [] : [v])]),
    },
    {
      weight: 1,
      arbitrary: fc
        .tuple(flag, fc.constantFrom(...(flags.flatMap((f) => f.choices ?? []) as string[]), 'nope'))
        .map(([f, v]) => [f.flag, v]),
    },
    { weight: 2, arbitrary: value.map((v) => [v]) },
    {
      weight: 1,
      arbitrary: fc.constantFrom<string[]>(['--'], ['-h'], ['--nope'], ['-qy'], ['--version'], ['x', 'y']),
    },
  );
}

const line = fc.constantFrom(...COMMANDS).chain(({ path }) => {
  const flags = [...GLOBAL_FLAGS, ...path.flatMap((decl) => decl.flags ?? [])];
  const names = fc.tuple(
    ...path.slice(1).map((decl) => fc.constantFrom(decl.name, ...(decl.aliases ?? []))),
  ) as fc.Arbitrary<string[]>;
  return fc
    .tuple(names, fc.array(word(flags), { maxLength: 6 }))
    .map(([words, rest]) => [...words, ...rest.flat()]);
});

describe('a plain command line, read without commander', () => {
  it('reads what commander reads, for every line it reads', async () => {
    let read = 0;
    await fc.assert(
      fc.asyncProperty(line, async (argv) => {
        const plain = plainReads(argv);
        if (!plain) return;
        read++;
        expect(await commanderReads(argv)).toEqual(plain);
      }),
      { numRuns: 1500 },
    );
    // Most lines made here are not plain; enough are for the property to say something.
    expect(read).toBeGreaterThan(150);
  });

  it('reads the lines people type most', async () => {
    const lines = [
      [
        'envelope',
        'create',
        '--template',
        '01JD7X4ZQ8G1N6RVS0Y2MBKT3E',
        '--name',
        'Ada',
        '--email',
        'a@b.co',
      ],
      [
        'envelope',
        'create',
        '--template=t',
        '--set',
        'a=1',
        '--set',
        'b=2',
        '--data',
        '-',
        '-q',
        '--no-input',
      ],
      ['envelope', 'batch', 'records.csv', '--output', 'out.jsonl', '--concurrency', '8', '--keep-going'],
      ['envelope', 'batch', '-', '--format', 'jsonl', '--resume'],
      ['whoami', '--json'],
      ['status', '--json', '--profile', 'work'],
      ['config', 'set', 'accessible', 'true'],
    ];
    for (const argv of lines) {
      const plain = plainReads(argv);
      expect(plain, argv.join(' ')).toBeDefined();
      expect(await commanderReads(argv)).toEqual(plain);
    }
    expect(plainReads(lines[1] as string[])?.raw).toMatchObject({
      set: ['a=1', 'b=2'],
      data: ['-'],
      quiet: true,
      input: false,
    });
  });

  it('leaves to commander what commander words an error for, or answers itself', () => {
    const left = [
      ['envelope', 'create', '--json', '--quiet'],
      ['envelope', 'create', '--name'],
      ['envelope', 'create', '--name', '--json'],
      ['envelope', 'create', '--nope'],
      ['envelope', 'create', '--json', '--json'],
      ['envelope', 'create', '-qy'],
      ['envelope', 'create', 'extra'],
      ['envelope', 'create', '--', '--name'],
      ['envelope', 'create', '--help'],
      ['envelope', 'batch'],
      ['envelope', 'batch', 'a.csv', '--format', 'xml'],
      ['--profile', 'work', 'status'],
      ['envelope'],
      ['nope'],
      [],
    ];
    for (const argv of left) expect(plainReads(argv), argv.join(' ')).toBeUndefined();
  });
});
