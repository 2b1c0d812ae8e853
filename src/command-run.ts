// The one step every command that runs goes through, however its line was read (by commander in
// src/cli.ts, or from the table alone in src/plain-line.ts): its module is imported, its raw options
// (flags merged with the ones above it, positional arguments by their declared names) go through the
// schema made from its declaration (src/options.ts), and only typed, checked options reach its `run`.
import type { CommandDecl, FlagDecl } from './command-types.js';
import { GLOBAL_FLAGS } from './commands/global-flags.js';
import type { Context } from './context.js';
import { keyOf } from './declarations.js';
import { UsageError } from './errors.js';
import { schemaFor } from './options.js';
import { describeIssue } from './text/issues.js';

/** What the entry point learns while a command line is parsed and run. */
export interface ProgramHooks {
  /** The command's options passed its schema: main learns --json/--verbose here, and hands back the context to run with. */
  onOptions(options: { json?: boolean; verbose?: boolean }, command: { streamsStderr: boolean }): Context;
  onResult(code: number): void;
}

/**
 * Runs the last command of `path` (the root first) with the raw options read from its line;
 * `inherited`: the flags of the commands above it.
 */
export async function runDeclared(
  path: readonly CommandDecl[],
  raw: Record<string, unknown>,
  inherited: readonly FlagDecl[],
  hooks: ProgramHooks,
): Promise<void> {
  const decl = path[path.length - 1] as CommandDecl;
  if (!decl.load) throw new Error(`${decl.name} has nothing to run`);
  const module = await decl.load();
  const options = await checkedOptions(path, raw, inherited);
  const runCtx = hooks.onOptions(options, { streamsStderr: decl.streamsStderr === true });
  hooks.onResult(await module.run(options as never, runCtx));
}

/** The raw options through the declaration's schema; a failure is a usage error naming the flag. */
async function checkedOptions(
  path: readonly CommandDecl[],
  raw: Record<string, unknown>,
  inherited: readonly FlagDecl[],
): Promise<Record<string, unknown>> {
  const decl = path[path.length - 1] as CommandDecl;
  const parsed = schemaFor(decl, [...GLOBAL_FLAGS, ...inherited]).safeParse(raw);
  if (parsed.success) return parsed.data as Record<string, unknown>;
  const problems = parsed.error.issues.map((issue) => {
    const key = String(issue.path[0] ?? '');
    return `${flagName(decl, key)} ${describeIssue(issue)}${describeValue(raw[key])}`;
  });
  throw new UsageError(`${problems[0]}.`, {
    details: problems.slice(1),
    hint: `Run \`${path.map((at) => at.name).join(' ')} --help\` to see its flags and examples.`,
  });
}

/** "--expires-in-days" for the option key "expiresInDays", "file" for a positional argument. */
function flagName(decl: CommandDecl, key: string): string {
  const flag = [...GLOBAL_FLAGS, ...(decl.flags ?? [])].find((f) => keyOf(f.flag) === key);
  if (flag) return flag.flag;
  // A positional argument by its name, as a word of the sentence ("shell must be one of …").
  return (decl.args ?? []).some((a) => a.name === key) ? key : `--${key}`;
}

function describeValue(value: unknown): string {
  return value === undefined ? '' : ` (got ${JSON.stringify(value)})`;
}
