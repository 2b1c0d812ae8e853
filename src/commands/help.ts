// Help from the command table, without commander: `esign --help`, `esign <command> --help`,
// `esign help [command…|topic]` and a bare group (`esign envelope`) are all one page each, rendered
// by src/help/render.ts through help-page.ts (the reference and man pages are written from the same
// pages: reference-pages.ts). This module only finds what help is asked for: every command runs it,
// and the renderer is loaded only to render.
import type { CommandDecl } from '../command-types.js';
import type { Context } from '../context.js';
import { childNamed, flagSpelled, pathOf, takesValue } from '../declarations.js';
import { UsageError } from '../errors.js';
import { GLOBAL_FLAGS, HELP_FLAG } from './global-flags.js';
import { ROOT } from './table.js';

/** `esign help [command…|topic]`: a command's help or a topic, on stdout. */
export async function showHelp(ctx: Context, words: readonly string[]): Promise<number> {
  const { HELP_TOPICS } = await import('../help-topics.js');
  const [first = ''] = words;
  const topic = words.length === 1 && Object.hasOwn(HELP_TOPICS, first) ? HELP_TOPICS[first] : undefined;
  if (topic) {
    ctx.stdout.write(topic);
    return 0;
  }
  const path: CommandDecl[] = [ROOT];
  for (const word of words) {
    const decl = path[path.length - 1] as CommandDecl;
    const next = childNamed(decl, word);
    if (!next) {
      const { didYouMean } = await import('../text/suggest.js');
      const names = (decl.subcommands ?? []).map((c) => c.name);
      const known = [...names, ...(decl === ROOT ? Object.keys(HELP_TOPICS) : [])];
      throw new UsageError(
        `No help for '${words.join(' ')}': unknown command or topic '${word}'.${didYouMean(word, known)}`,
        {
          hint: `Commands: ${names.join(', ')}${decl === ROOT ? `; topics: ${Object.keys(HELP_TOPICS).join(', ')}` : ''}.`,
        },
      );
    }
    path.push(next);
  }
  const { writeHelp } = await import('./help-page.js');
  return writeHelp(ctx, path);
}

/**
 * The command whose help the words ask for, read as commander reads them, or undefined: no words
 * (`esign`), a group named alone (`esign envelope`), or --help or -h as a flag (not the value of
 * one: `--name --help` names someone "--help"), for the deepest command the words reach.
 */
export function helpAsked(argv: readonly string[]): CommandDecl[] | undefined {
  const path = pathOf(ROOT, GLOBAL_FLAGS, argv);
  const last = path[path.length - 1] as CommandDecl;
  if (argv.length === path.length - 1 && !last.load && last.subcommands) return path;
  const flags = [...GLOBAL_FLAGS, ...path.flatMap((decl) => decl.flags ?? [])];
  for (let i = 0; i < argv.length; i++) {
    const word = argv[i] as string;
    if (word === '--') break;
    if (word === HELP_FLAG.flag || word === HELP_FLAG.short) return path;
    if (!word.startsWith('-') || word === '-') continue;
    const flag = flagSpelled(flags, word);
    if (flag && takesValue(flag) && !word.includes('=')) i++;
  }
  return undefined;
}
