// The quick entry (dist/quick.cjs, one CommonJS file of its own): help and Tab answered from the
// command table, before the rest of esign is loaded. bin/esign.js asks it first for a bare `esign`,
// `--help`/`-h`, `esign help …` and `esign __complete …`; whatever it cannot answer alone (a value
// that needs the config or the project file, a help topic or command that does not exist, an output
// that cannot be written) it leaves to the full entry (dist/main.js), which answers it the same way
// with its usual reports. What it writes is exactly what the full entry writes: the same functions.
import { writeSync } from 'node:fs';
import { isatty } from 'node:tty';
import type { CommandDecl } from './command-types.js';
import { complete, formatCompletion } from './commands/complete.js';
import { helpAsked } from './commands/help.js';
import { helpWidth, pageOf } from './commands/help-page.js';
import { commandTree, ROOT } from './commands/table.js';
import { childNamed } from './declarations.js';
import { helpText } from './help/render.js';
import { HELP_TOPICS } from './help-topics.js';

/** The columns help is wrapped to, decided as the full entry decides it (helpWidth). */
function width(): number {
  // process.stdout is made only at a terminal, for its columns.
  return helpWidth(isatty(1) ? process.stdout : {});
}

/** Writes all of `text` to stdout; false when not all of it could be (the full entry then reports it). */
function written(text: string): boolean {
  const bytes = Buffer.from(text);
  for (let at = 0; at < bytes.length; ) {
    try {
      at += writeSync(1, bytes, at);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EAGAIN') return false;
    }
  }
  return true;
}

/** `esign help <words>`: a topic, or a command's page; undefined for anything else. */
function helpWords(words: readonly string[]): string | undefined {
  const [first = ''] = words;
  if (words.length === 1 && Object.hasOwn(HELP_TOPICS, first)) return HELP_TOPICS[first];
  const path: CommandDecl[] = [ROOT];
  for (const word of words) {
    const next = childNamed(path[path.length - 1] as CommandDecl, word);
    if (!next) return undefined;
    path.push(next);
  }
  return helpText(pageOf(path), width());
}

/** Answers the command line when it is help or Tab that needs nothing but the table; false otherwise. */
export function answer(argv: readonly string[]): boolean {
  if (argv[0] === '__complete') {
    const words = argv.slice(argv[1] === '--' ? 2 : 1);
    let valuesAsked = false;
    const offered = complete(commandTree(), words.length ? words : [''], () => {
      valuesAsked = true;
      return [];
    });
    return !valuesAsked && written(formatCompletion(offered));
  }
  const asked = helpAsked(argv);
  if (asked) return written(helpText(pageOf(asked), width()));
  if (argv[0] === 'help' && !argv.some((word) => word.startsWith('-'))) {
    const text = helpWords(argv.slice(1));
    return text !== undefined && written(text);
  }
  return false;
}
