// What a command is: one plain-data declaration (its name, arguments, flags, help, examples, exit
// codes) and the module that runs it. Everything that knows the command line is made from the
// declarations: the parser (src/cli.ts), the options schema (src/options.ts), completion
// (src/commands/complete.ts), the batch's resume command, the help, the reference and man pages
// (src/help/). Plain data: nothing here loads zod or commander.
import type { Context } from './context.js';
import type { RateLimitPolicy } from './sandbox/faults/rate-limit.js';
import type { Rate } from './text/units.js';

/**
 * Values completed from outside the command tree, each by its own completer
 * (src/commands/completion-values.ts): profile names in the config, template names in force, the
 * fields the chosen template declares (for `--set`).
 */
export type ValueSourceName = 'profile' | 'template' | 'field';

/** How a value of a flag or argument is completed in a shell: files, a source, or fixed choices. */
export type CompleteWith = 'file' | ValueSourceName | readonly string[];

/**
 * What a flag's value is, and so which reader turns its text into a value (src/options.ts):
 * - `boolean`: no value; `--no-x` sets `x` to false.
 * - `text`, `path`: one value; a path completes files and may not be empty.
 * - `list`, `paths`: repeatable; every value, in order (an empty list when absent).
 * - `int`: a whole number in `range`; `share`: a number from 0 to 1.
 * - `rate` (100/min), `duration` (15m): read by src/text/units.ts.
 * - `choice`: one of `choices`.
 * - `rate-limit`: the sandbox's n[/window]; `address`: an address to listen on.
 */
type ValueKind =
  | 'boolean'
  | 'text'
  | 'path'
  | 'list'
  | 'paths'
  | 'int'
  | 'share'
  | 'rate'
  | 'duration'
  | 'choice'
  | 'rate-limit'
  | 'address';

export interface FlagDecl {
  /** The long spelling, `--max-rate-wait` (`--no-input` for a flag that turns something off). */
  readonly flag: string;
  /** The short spelling, `-o`. */
  readonly short?: string;
  readonly kind: ValueKind;
  /** The value's name in the synopsis (`<file>`), when the kind's own word is not the best. */
  readonly value?: string;
  /** `int`: the smallest and largest value. */
  readonly range?: readonly [number, number];
  /** `int`: what a bad value is told it must be, when "a whole number from … to …" says too little. */
  readonly expected?: string;
  /** `choice`: the values allowed. */
  readonly choices?: readonly string[];
  /** The value taken when the flag is absent, as the command receives it (milliseconds for a duration). */
  readonly default?: string | number;
  /** The default when it is decided elsewhere (a setting, the project file): shown, never applied here. */
  readonly shownDefault?: string;
  /** The environment variable that sets the same thing. */
  readonly env?: string;
  /** How its value completes in a shell, when not by its kind (paths: files; choices: the choices). */
  readonly complete?: ValueSourceName;
  readonly help: string;
  /** The resume command a batch prints repeats this flag with the value the run used. */
  readonly resume?: boolean;
  /** Accepted but not shown (login's --token, there only to explain why a token is never a flag). */
  readonly hidden?: boolean;
  /** `text` with `hidden`: the value may be left out. */
  readonly optionalValue?: boolean;
  /** Another flag (its long spelling) that cannot be given with this one. */
  readonly conflicts?: string;
}

export interface ArgDecl {
  readonly name: string;
  readonly required: boolean;
  /** Takes every remaining word. */
  readonly variadic?: boolean;
  readonly kind: 'text' | 'path' | 'choice';
  readonly choices?: readonly string[];
  readonly complete?: ValueSourceName;
  /** `text`: the values completion offers, which the command checks itself (with its own message). */
  readonly offers?: readonly string[];
  readonly help: string;
}

/** A global flag a command ignores: its help does not list it and completion does not offer it. */
type ConnectionFlag = '--profile' | '--base-url' | '--timeout';

export interface CommandDecl {
  readonly name: string;
  readonly aliases?: readonly string[];
  /** One line: in the list of commands, and the first line of the command's page. */
  readonly summary: string;
  /** More paragraphs, for the help and the reference page. */
  readonly description?: string;
  readonly args?: readonly ArgDecl[];
  readonly flags?: readonly FlagDecl[];
  /** Lines of the examples: a command, a `# comment`, or an empty line. */
  readonly examples: readonly string[];
  /** The exit codes the command can end with (src/errors.ts's ExitCode). */
  readonly exitCodes?: readonly number[];
  /** Help topics (`esign help <topic>`) worth reading next. */
  readonly related?: readonly string[];
  /** The global flags that mean nothing to this command (the sandbox has no profile). */
  readonly unusedGlobals?: readonly ConnectionFlag[];
  /** Its stderr is a live log (the sandbox): under --json it is not held back for the error object. */
  readonly streamsStderr?: boolean;
  readonly subcommands?: readonly CommandDecl[];
  /** The module that runs it (none for a group that only lists its commands). */
  readonly load?: () => Promise<CommandModule<never>>;
}

/** A command's module, imported when it runs. */
export type Loaded = Promise<CommandModule<never>>;

/** What every command module gives: a run over the options its declaration's schema checked. */
export interface CommandModule<Options = never> {
  run(options: Options, ctx: Context): Promise<number>;
}

// The options a declaration gives its run, typed from the declaration itself.
type Camel<S extends string> = S extends `${infer Head}-${infer Tail}`
  ? `${Head}${Capitalize<Camel<Tail>>}`
  : S;

/** The options key of a flag: `--max-rate-wait` → maxRateWait, `--no-input` → input. */
export type KeyOf<Flag extends string> = Flag extends `--no-${infer Rest}`
  ? Camel<Rest>
  : Flag extends `--${infer Rest}`
    ? Camel<Rest>
    : never;

type KindValue<F extends FlagDecl> = F['kind'] extends 'boolean'
  ? boolean
  : F['kind'] extends 'list' | 'paths'
    ? string[]
    : F['kind'] extends 'int' | 'share' | 'duration'
      ? number
      : F['kind'] extends 'rate'
        ? Rate
        : F['kind'] extends 'rate-limit'
          ? RateLimitPolicy
          : F['kind'] extends 'choice'
            ? F['choices'] extends readonly (infer C)[]
              ? C
              : string
            : F['optionalValue'] extends true
              ? string | boolean
              : string;

export type FlagValue<F extends FlagDecl> = F['kind'] extends 'list' | 'paths'
  ? string[]
  : F extends { default: string | number }
    ? KindValue<F>
    : KindValue<F> | undefined;

type ArgValue<A extends ArgDecl> = A['variadic'] extends true
  ? string[]
  :
      | (A['choices'] extends readonly (infer C)[] ? C : string)
      | (A['required'] extends true ? never : undefined);

export type FlagOptions<Flags extends readonly FlagDecl[]> = {
  [F in Flags[number] as KeyOf<F['flag']>]: FlagValue<F>;
};

type ArgOptions<Args extends readonly ArgDecl[]> = { [A in Args[number] as A['name']]: ArgValue<A> };

/** The typed options of a command declared as `D`, with the global flags `G`. */
export type OptionsOf<D extends CommandDecl, G extends readonly FlagDecl[]> = FlagOptions<G> &
  (D['flags'] extends readonly FlagDecl[] ? FlagOptions<D['flags']> : unknown) &
  (D['args'] extends readonly ArgDecl[] ? ArgOptions<D['args']> : unknown);

/** The command tree as completion sees it: a narrow, plain description. */
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
