// A command's help page, from the command table, rendered by src/help/render.ts (help.ts finds which
// page is asked for; the reference and man pages are written from the same pages: reference-pages.ts).
import type { CommandDecl } from '../command-types.js';
import type { Context } from '../context.js';
import { helpPage, helpText } from '../help/render.js';
import { GLOBAL_FLAGS, HELP_FLAG, VERSION_FLAG } from './global-flags.js';

/** The page of the last command of `path` (the root first). */
export function pageOf(path: readonly CommandDecl[]) {
  return helpPage(path, GLOBAL_FLAGS, { help: HELP_FLAG, version: VERSION_FLAG });
}

/** The columns help is wrapped to on a stream: the terminal's (40 to 120), 80 off one. */
export function helpWidth(stream: { isTTY?: boolean; columns?: number }): number {
  const width = stream.isTTY ? (stream.columns ?? 80) : 80;
  return Math.min(Math.max(width, 40), 120);
}

/** The columns help is wrapped to on the command's stdout. */
export function widthOf(ctx: Context): number {
  return helpWidth(ctx.stdout);
}

/** The help of a command, on stdout. */
export function writeHelp(ctx: Context, path: readonly CommandDecl[]): number {
  ctx.stdout.write(helpText(pageOf(path), widthOf(ctx)));
  return 0;
}
