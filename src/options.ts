// The options step every command shares: commander hands over raw flags (strings, booleans, string
// lists) and positional arguments by name; a command's zod schema turns them into typed, checked
// options. These are the pieces those schemas are built from.
import * as z from 'zod/mini';
import { CI_OUTPUT_MODES } from './ci/output-modes.js';

/** The global flags, accepted by every command (commander merges them in). */
export const globalOptions = {
  profile: z.optional(z.string()),
  baseUrl: z.optional(z.string()),
  /** Kept as text: the settings resolver checks it with ESIGN_TIMEOUT and says where a bad value came from. */
  timeout: z.optional(z.string()),
  verbose: z.optional(z.boolean()),
  json: z.optional(z.boolean()),
  /** GitHub Actions integration: auto (GITHUB_ACTIONS=true), github, none; over ESIGN_CI. */
  ciOutput: z.optional(z.enum(CI_OUTPUT_MODES, { error: 'must be auto, github or none' })),
};

export const GlobalOptions = z.object(globalOptions);
export type GlobalOptions = z.infer<typeof GlobalOptions>;

/**
 * A flag's text turned into a value by `parse` (undefined: not valid), or an issue saying what was
 * expected ("must be <expected>"). A number is taken as its text (commander's numeric defaults).
 */
export function fromText<T>(parse: (text: string) => T | undefined, expected: string) {
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
export function wholeNumber(min: number, max: number, what = `a whole number from ${min} to ${max}`) {
  return fromText((raw) => {
    const text = raw.trim();
    const value = Number(text);
    return /^\d+$/.test(text) && value >= min && value <= max ? value : undefined;
  }, what);
}

/** A share from 0 to 1, like 0.1. */
export function share() {
  return fromText((raw) => {
    const text = raw.trim();
    const value = Number(text);
    return /^(\d+(\.\d*)?|\.\d+)$/.test(text) && value <= 1 ? value : undefined;
  }, 'a number from 0 to 1, like 0.1');
}

/** A repeatable flag: commander collects it into a list; absent is an empty list. */
export const repeated = () => z._default(z.array(z.string()), []);

/** The connection the global flags choose (--profile, --base-url, --timeout), as given. */
export function connectionOf(options: {
  profile?: string | undefined;
  baseUrl?: string | undefined;
  timeout?: string | undefined;
}): { profile: string | undefined; baseUrl: string | undefined; timeout: string | undefined } {
  return { profile: options.profile, baseUrl: options.baseUrl, timeout: options.timeout };
}
