// The options step every command shares: commander hands over raw flags (strings, booleans, string
// lists) and positional arguments by name; the zod schema made here from the command's declaration
// turns them into typed, checked options. Each kind of value is read by its one reader (src/text/units.ts
// for rates and durations, the sandbox's for its rate limit).
import * as z from 'zod/mini';
import type { ArgDecl, CommandDecl, FlagDecl } from './command-types.js';
import { keyOf } from './declarations.js';
import { rateLimitPolicySchema } from './sandbox/faults/rate-limit.js';
import { DURATION_EXPECTED, parseDuration, parseRate, RATE_EXPECTED } from './text/units.js';

/**
 * A flag's text turned into a value by `parse` (undefined: not valid), or an issue saying what was
 * expected ("must be <expected>"). A number is taken as its text (commander's numeric defaults).
 */
function fromText<T>(parse: (text: string) => T | undefined, expected: string) {
  return z.pipe(
    z.union([z.string(), z.number()]),
    z.transform((raw, ctx) => {
      const value = parse(String(raw));
      if (value !== undefined) return value;
      ctx.issues.push({ code: 'custom', message: `must be ${expected}`, input: raw });
      return z.NEVER;
    }),
  );
}

/** A whole number from `min` to `max`, given as text on the command line (or as a number default). */
function wholeNumber(min: number, max: number, what = `a whole number from ${min} to ${max}`) {
  return fromText((raw) => {
    const text = raw.trim();
    const value = Number(text);
    return /^\d+$/.test(text) && value >= min && value <= max ? value : undefined;
  }, what);
}

/** A share from 0 to 1, like 0.1. */
function share() {
  return fromText((raw) => {
    const text = raw.trim();
    const value = Number(text);
    return /^(\d+(\.\d*)?|\.\d+)$/.test(text) && value <= 1 ? value : undefined;
  }, 'a number from 0 to 1, like 0.1');
}

/** A repeatable flag: commander collects it into a list; absent is an empty list. */
const repeated = () => z._default(z.array(z.string()), []);

/** "jsonl or csv", "one of a, b, c". */
function choiceText(choices: readonly string[]): string {
  return choices.length === 2 ? `${choices[0]} or ${choices[1]}` : `one of ${choices.join(', ')}`;
}

function choice(choices: readonly string[]) {
  return z.enum(choices as [string, ...string[]], { error: `must be ${choiceText(choices)}` });
}

const nonEmptyPath = () => z.string().check(z.minLength(1, 'must be a file path'));

/** The reader of a flag's or argument's value, by its kind. */
function readerOf(item: FlagDecl | ArgDecl): z.ZodMiniType {
  switch (item.kind) {
    case 'boolean':
      return z.boolean();
    case 'text':
      return 'optionalValue' in item && item.optionalValue ? z.union([z.string(), z.boolean()]) : z.string();
    case 'path':
      return nonEmptyPath();
    case 'list':
    case 'paths':
      return repeated();
    case 'int': {
      const [min, max] = ('range' in item && item.range) || [0, Number.MAX_SAFE_INTEGER];
      return wholeNumber(min, max, ('expected' in item && item.expected) || undefined);
    }
    case 'share':
      return share();
    case 'rate':
      return fromText((text) => parseRate(text), RATE_EXPECTED);
    case 'duration':
      return fromText(parseDuration, DURATION_EXPECTED);
    case 'choice':
      return choice(item.choices ?? []);
    case 'rate-limit':
      return rateLimitPolicySchema();
    case 'address':
      return z
        .string()
        .check(
          z.refine(
            (s) => s.trim() !== '' && !/\s/.test(s),
            'must be an address to listen on, like 127.0.0.1',
          ),
        );
  }
}

function flagField(flag: FlagDecl): z.ZodMiniType {
  const reader = readerOf(flag);
  if (flag.kind === 'list' || flag.kind === 'paths') return reader;
  return flag.default === undefined ? z.optional(reader) : z._default(reader, flag.default as never);
}

function argField(arg: ArgDecl): z.ZodMiniType {
  if (arg.variadic) return repeated();
  // A file argument is checked by the command, which says what it could not read.
  const reader = arg.kind === 'path' ? z.string() : readerOf(arg);
  return arg.required ? reader : z.optional(reader);
}

/**
 * The options schema of a command, made from its declaration when it runs: its own flags and
 * positional arguments, and the global flags. `json` and `verbose` are always there (main reads them).
 */
export function schemaFor(decl: CommandDecl, globals: readonly FlagDecl[]): z.ZodMiniObject {
  const shape: Record<string, z.ZodMiniType> = {
    json: z.optional(z.boolean()),
    verbose: z.optional(z.boolean()),
  };
  for (const flag of [...globals, ...(decl.flags ?? [])]) shape[keyOf(flag.flag)] = flagField(flag);
  for (const arg of decl.args ?? []) shape[arg.name] = argField(arg);
  return z.object(shape);
}

/** The connection the global flags choose (--profile, --base-url, --timeout), as given. */
export function connectionOf(options: {
  profile?: string | undefined;
  baseUrl?: string | undefined;
  timeout?: string | undefined;
}): { profile: string | undefined; baseUrl: string | undefined; timeout: string | undefined } {
  return { profile: options.profile, baseUrl: options.baseUrl, timeout: options.timeout };
}
