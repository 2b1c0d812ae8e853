// The reference pages and man pages of every command, as `npm run docs` writes them
// (scripts/docs.mjs) and `npm run check` compares them: file path → content.
import type { CommandDecl } from '../command-types.js';
import { manPage, markdownPage, pageName } from '../help/reference.js';
import { pageOf } from './help-page.js';
import { ROOT } from './table.js';

function paths(path: CommandDecl[]): CommandDecl[][] {
  const decl = path[path.length - 1] as CommandDecl;
  return [path, ...(decl.subcommands ?? []).flatMap((child) => paths([...path, child]))];
}

export function referenceFiles(): Record<string, string> {
  const files: Record<string, string> = {};
  for (const path of paths([ROOT])) {
    const page = pageOf(path);
    files[`docs/commands/${pageName(page)}.md`] = markdownPage(page);
    files[`man/${pageName(page)}.1`] = manPage(page);
  }
  return files;
}
