// What a command module is, and the command tree as completion sees it. Kept apart from the command
// table (src/cli.ts), which lazy-imports the modules: the modules import these types from here, so
// the table and the modules never import each other.
import type * as z from 'zod/mini';
import type { Context } from './context.js';

/** What every command module exports: its options schema and a run over the options it checked. */
export interface CommandModule<Options = never> {
  readonly options: z.ZodMiniType<Options>;
  run(options: Options, ctx: Context, meta: CommandMeta): Promise<number>;
}

/** What a command may learn about the command line beyond its own options (completion needs the tree). */
interface CommandMeta {
  tree(): CommandTree;
}

/**
 * Values completed from outside the command tree, each by its own completer
 * (src/commands/completion-values.ts): profile names in the config, template names in force, the
 * fields the chosen template declares (for `--set`).
 */
export type ValueSourceName = 'profile' | 'template' | 'field';

/** How a value of a flag or argument is completed in a shell: files, a source, or fixed choices. */
export type CompleteWith = 'file' | ValueSourceName | readonly string[];

/** The command tree as completion sees it: a narrow, plain description, no commander objects. */
export interface CommandTree {
  name: string;
  aliases: string[];
  description: string;
  options: { flags: string[]; takesValue: boolean; complete?: CompleteWith }[];
  /** Global flags that mean nothing to this command (the sandbox has no profile): not offered. */
  unusedGlobals: string[];
  args: { name: string; complete?: CompleteWith }[];
  subcommands: CommandTree[];
}
