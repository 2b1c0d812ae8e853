// One help renderer, over the command table: `esign --help`, `esign help <command>`, the reference
// pages (docs/commands/esign-<path>.md) and the man pages (man/esign-<path>.1) say the same things in
// the same words, from the same declarations. A page is first a list of parts (plain data), then
// written as terminal text (wrapped to the terminal's width), Markdown or roff.
import type { ArgDecl, CommandDecl, FlagDecl } from '../command-types.js';
import { durationText } from '../text/units.js';
import { EXIT_CODE_MEANINGS } from './exit-codes.js';

/** A command's page: everything its help, reference page and man page say. */
export interface HelpPage {
  /** `esign envelope create` */
  path: string;
  summary: string;
  usage: string;
  description: string | undefined;
  args: { name: string; help: string }[];
  commands: { name: string; aliases: readonly string[]; summary: string }[];
  flags: FlagRow[];
  globalFlags: FlagRow[];
  examples: readonly string[];
  exitCodes: { code: number; meaning: string }[];
  related: string[];
}

export interface FlagRow {
  /** `-o, --output <file>` */
  spelling: string;
  /** The help text, with its choices, default and variable. */
  help: string;
  /** The help text alone (the reference pages give the rest columns of their own). */
  text: string;
  kind: string;
  default: string | undefined;
  env: string | undefined;
}

/** `-o, --output <file>`, `--token [value]`. */
export function flagSpelling(flag: FlagDecl): string {
  const value =
    flag.kind === 'boolean'
      ? ''
      : flag.optionalValue
        ? ` [${flag.value ?? 'value'}]`
        : ` <${flag.value ?? 'value'}>`;
  return `${flag.short ? `${flag.short}, ` : ''}${flag.flag}${value}`;
}

/** A default as a user would type it: 15m, not 900000. */
function defaultOf(flag: FlagDecl): string | undefined {
  if (flag.shownDefault !== undefined) return flag.shownDefault;
  if (flag.default === undefined) return undefined;
  return flag.kind === 'duration' ? durationText(Number(flag.default)) : String(flag.default);
}

/** What the value of a flag is, in words (the reference pages' kind column). */
function kindText(flag: FlagDecl): string {
  switch (flag.kind) {
    case 'boolean':
      return 'switch';
    case 'int':
      return flag.range ? `whole number, ${flag.range[0]} to ${flag.range[1]}` : 'whole number';
    case 'share':
      return 'number, 0 to 1';
    case 'choice':
      return `one of: ${(flag.choices ?? []).join(', ')}`;
    case 'list':
      return 'text, repeatable';
    case 'paths':
      return 'file, repeatable';
    case 'path':
      return 'file';
    case 'rate':
      return 'rate (100/min)';
    case 'duration':
      return 'duration (90s, 10m)';
    case 'rate-limit':
      return 'n[/window]';
    case 'address':
      return 'address';
    default:
      return 'text';
  }
}

/** The words after a flag's help: its choices, default and variable, said one way everywhere. */
function flagNotes(flag: FlagDecl): string {
  const shown = defaultOf(flag);
  const notes = [
    ...(flag.kind === 'choice' ? [`one of: ${(flag.choices ?? []).join(', ')}`] : []),
    ...(shown === undefined ? [] : [`default: ${shown}`]),
    ...(flag.env ? [`env: ${flag.env}`] : []),
  ];
  return notes.length ? ` (${notes.join('; ')})` : '';
}

function flagRow(flag: FlagDecl): FlagRow {
  return {
    spelling: flagSpelling(flag),
    help: `${flag.help}${flagNotes(flag)}`,
    text: flag.help,
    kind: kindText(flag),
    default: defaultOf(flag),
    env: flag.env,
  };
}

function argText(arg: ArgDecl): string {
  const name = `${arg.name}${arg.variadic ? '...' : ''}`;
  return arg.required ? `<${name}>` : `[${name}]`;
}

/** The page of the last command of `path` (the root first). */
export function helpPage(
  path: readonly CommandDecl[],
  globals: readonly FlagDecl[],
  extras: { help: FlagDecl; version: FlagDecl },
): HelpPage {
  const decl = path[path.length - 1] as CommandDecl;
  const isRoot = path.length === 1;
  const words = path.map((c) => c.name).join(' ');
  const subcommands = decl.subcommands ?? [];
  const unused = decl.unusedGlobals ?? [];
  const usedGlobals = globals.filter((f) => !unused.includes(f.flag as never));
  const own = (decl.flags ?? []).filter((f) => !f.hidden);
  const usage = [
    words,
    ...(subcommands.length > 0 && !decl.load ? ['<command>'] : subcommands.length > 0 ? ['[command]'] : []),
    ...(decl.args ?? []).map(argText),
    '[flags]',
  ].join(' ');
  return {
    path: words,
    summary: decl.summary,
    usage,
    description: decl.description,
    args: (decl.args ?? []).map((a) => ({ name: a.name, help: a.help })),
    commands: subcommands.map((c) => ({ name: c.name, aliases: c.aliases ?? [], summary: c.summary })),
    flags: [...(isRoot ? [...globals, extras.version] : own), extras.help].map(flagRow),
    globalFlags: isRoot ? [] : usedGlobals.map(flagRow),
    examples: decl.examples,
    exitCodes: (decl.exitCodes ?? []).map((code) => ({ code, meaning: EXIT_CODE_MEANINGS[code] ?? '' })),
    related: (decl.related ?? []).map((topic) => `esign help ${topic}`),
  };
}

/** Words wrapped to `width` columns, each line after the first indented by `indent`. */
function wrap(text: string, width: number, indent: number): string {
  const room = Math.max(20, width - indent);
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(/\s+/).filter(Boolean)) {
    if (line && line.length + 1 + word.length > room) {
      lines.push(line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  if (line) lines.push(line);
  return lines.join(`\n${' '.repeat(indent)}`);
}

/** Two columns: a term and its text, the text wrapped beside the widest term. */
export function table(
  rows: { term: string; text: string }[],
  width: number,
  column = Math.min(Math.max(...rows.map((r) => r.term.length)) + 4, 34),
): string[] {
  // On a narrow terminal the text keeps most of the line: a longer term goes on a line of its own.
  const at = Math.min(column, Math.floor(width * 0.4));
  return rows.map(({ term, text }) => {
    const lead = `  ${term}`;
    if (lead.length + 2 > at) return `${lead}\n${' '.repeat(at)}${wrap(text, width, at)}`;
    return `${lead.padEnd(at)}${wrap(text, width, at)}`;
  });
}

function exampleLine(line: string): string {
  return line.startsWith('#') || line.startsWith(' ') || line === '' ? `  ${line}`.trimEnd() : `  $ ${line}`;
}

/** The page as terminal text, wrapped to `width` columns. */
export function helpText(page: HelpPage, width = 80): string {
  const parts: string[] = [`Usage: ${page.usage}`, '', wrap(page.summary, width, 0)];
  if (page.description) parts.push('', wrap(page.description, width, 0));
  const section = (title: string, lines: string[]) => {
    if (lines.length) parts.push('', `${title}:`, ...lines);
  };
  section(
    'Arguments',
    table(
      page.args.map((a) => ({ term: a.name, text: a.help })),
      width,
    ),
  );
  section(
    'Commands',
    table(
      page.commands.map((c) => ({ term: [c.name, ...c.aliases].join(', '), text: c.summary })),
      width,
    ),
  );
  // The flags and the global flags in one column.
  const flagTerms = [...page.flags, ...page.globalFlags].map((f) => f.spelling.length);
  const flagColumn = Math.min(Math.max(...flagTerms) + 4, 34);
  const flagRows = (rows: FlagRow[]) =>
    table(
      rows.map((f) => ({ term: f.spelling, text: f.help })),
      width,
      flagColumn,
    );
  section('Flags', flagRows(page.flags));
  section('Global flags', flagRows(page.globalFlags));
  section('Examples', page.examples.map(exampleLine));
  section(
    'Exit codes',
    table(
      page.exitCodes.map((e) => ({ term: String(e.code), text: e.meaning })),
      width,
    ),
  );
  const more = [...(page.commands.length ? [`${page.path} <command> --help`] : []), ...page.related];
  section(
    'See also',
    more.map((line) => `  ${line}`),
  );
  return `${parts.join('\n')}\n`;
}
