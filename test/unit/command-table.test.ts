// The command table is the one place a flag is declared: the options schema, completion, the help
// and the resume command are all made from it. Each flag here reaches each of them, and what the
// help shows as a flag's default is what the schema gives when the flag is absent.
import { describe, expect, it } from 'vitest';
import type { CommandDecl, FlagDecl } from '../../src/command-types.js';
import { nextCommand } from '../../src/commands/envelope/next-command.js';
import { GLOBAL_FLAGS } from '../../src/commands/global-flags.js';
import { pageOf } from '../../src/commands/help-page.js';
import { commandTree, ROOT } from '../../src/commands/table.js';
import { keyOf } from '../../src/declarations.js';
import { helpText } from '../../src/help/render.js';
import { schemaFor } from '../../src/options.js';

function paths(path: CommandDecl[]): CommandDecl[][] {
  const decl = path[path.length - 1] as CommandDecl;
  return [path, ...(decl.subcommands ?? []).flatMap((child) => paths([...path, child]))];
}

/** A value of the flag's kind, as a run would have it. */
const SAMPLES: Partial<Record<FlagDecl['kind'], unknown>> = {
  boolean: true,
  list: ['v'],
  paths: ['v'],
  int: 3,
  duration: 90_000,
  rate: { count: 5, perMs: 1000 },
};
const sampleValue = (flag: FlagDecl) =>
  flag.kind === 'choice' ? flag.choices?.[0] : (SAMPLES[flag.kind] ?? 'v');

const runnable = paths([ROOT]).filter((path) => path[path.length - 1]?.load);

describe('the command table', () => {
  it('has every command that runs, with examples and exit codes', () => {
    expect(runnable.map((path) => path.map((c) => c.name).join(' '))).toEqual(
      expect.arrayContaining([
        'esign envelope batch',
        'esign envelope create',
        'esign sandbox',
        'esign config set',
      ]),
    );
    for (const path of paths([ROOT])) {
      const decl = path[path.length - 1] as CommandDecl;
      expect(decl.examples.length, decl.name).toBeGreaterThan(0);
      expect(decl.exitCodes?.includes(0), decl.name).toBe(true);
    }
  });

  it.each(runnable.map((path) => [path.map((c) => c.name).join(' '), path] as const))(
    '%s: each flag is in the schema, the completion tree and the help, and its shown default is the schema’s',
    (_name, path) => {
      const decl = path[path.length - 1] as CommandDecl;
      const shape = schemaFor(decl, GLOBAL_FLAGS).shape as unknown as Record<
        string,
        { safeParse(v: unknown): { success: boolean; data?: unknown } }
      >;
      let node = commandTree();
      for (const c of path.slice(1)) node = node.subcommands.find((s) => s.name === c.name) ?? node;
      const page = pageOf(path);
      for (const flag of decl.flags ?? []) {
        const field = shape[keyOf(flag.flag)];
        expect(field, `${decl.name} ${flag.flag}`).toBeDefined();
        if (flag.hidden) continue;
        expect(
          node.options.some((o) => o.flags.includes(flag.flag)),
          `${decl.name} ${flag.flag} completes`,
        ).toBe(true);
        expect(
          page.flags.some((row) => row.spelling.includes(flag.flag)),
          `${decl.name} ${flag.flag} in help`,
        ).toBe(true);
        if (flag.default === undefined) continue;
        const row = page.flags.find((r) => r.spelling.includes(flag.flag));
        // What the help shows, typed as a user would, is what the schema gives for no flag.
        const absent = field?.safeParse(undefined);
        const typed = field?.safeParse(row?.default);
        expect(typed?.success, `${flag.flag} ${row?.default}`).toBe(true);
        expect(typed?.data, `${decl.name} ${flag.flag}`).toEqual(absent?.data);
      }
      for (const arg of decl.args ?? []) expect(shape[arg.name], `${decl.name} <${arg.name}>`).toBeDefined();
    },
  );

  it('the resume command repeats exactly the flags marked to be repeated, with their values', () => {
    const batch = ROOT.subcommands
      .find((c) => c.name === 'envelope')
      ?.subcommands?.find((c) => c.name === 'batch');
    const marked = [...(batch?.flags ?? []), ...GLOBAL_FLAGS].filter((f: FlagDecl) => f.resume);
    const values = Object.fromEntries(marked.map((f: FlagDecl) => [keyOf(f.flag), sampleValue(f)]));
    const command = nextCommand({ file: 'hires.csv', ...values });
    for (const flag of marked) expect(command, flag.flag).toContain(flag.flag);
    expect(command).toContain('--max-rate-wait 90s');
    expect(command).toContain('--rate 5/s');
    for (const flag of (batch?.flags ?? []).filter((f: FlagDecl) => !f.resume))
      expect(command).not.toContain(`${flag.flag} `);
  });

  it('help follows the width it is given: every line but the examples fits', () => {
    for (const path of paths([ROOT])) {
      for (const width of [50, 80, 120]) {
        const text = helpText(pageOf(path), width);
        const beforeExamples = text.slice(0, text.indexOf('\nExamples:'));
        const afterExamples = text.slice(text.indexOf('\nExit codes:'));
        for (const line of `${beforeExamples}\n${afterExamples}`.split('\n')) {
          expect(
            line.length,
            `${path.map((c) => c.name).join(' ')} at ${width}: ${line}`,
          ).toBeLessThanOrEqual(width);
        }
      }
    }
  });
});
