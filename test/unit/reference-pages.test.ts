// The reference pages (docs/commands/) and man pages (man/) are made from the command table by
// `npm run docs`, and `npm run check` (scripts/docs.mjs --check) fails when one differs from what
// the table makes: edited by hand, missing, left over, or not listed under "man" in package.json.
// And they say what the help says: every flag a command's --help shows is on its pages.
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { CommandTree } from '../../src/command-types.js';
import { commandTree } from '../../src/commands/table.js';
import { runCli } from '../helpers/context.js';

const ROOT = resolve(import.meta.dirname, '../..');
const SCRIPT = join(ROOT, 'scripts', 'docs.mjs');

/** A copy of the pages and package.json, for the check to read. */
function pagesCopy(): string {
  const dir = mkdtempSync(join(tmpdir(), 'esign-pages-'));
  cpSync(join(ROOT, 'docs', 'commands'), join(dir, 'docs', 'commands'), { recursive: true });
  cpSync(join(ROOT, 'man'), join(dir, 'man'), { recursive: true });
  cpSync(join(ROOT, 'package.json'), join(dir, 'package.json'));
  return dir;
}

function check(dir: string) {
  return spawnSync(process.execPath, [SCRIPT, '--check', '--pages', dir], { encoding: 'utf8' });
}

function allPaths(tree: CommandTree, path: string[] = []): string[][] {
  return tree.subcommands.flatMap((c) => [[...path, c.name], ...allPaths(c, [...path, c.name])]);
}

describe('reference and man pages', () => {
  it('the pages checked in are what the table makes; a page edited by hand, missing or left over fails', () => {
    const dir = pagesCopy();
    try {
      expect(check(dir).status).toBe(0);
      const page = join(dir, 'docs', 'commands', 'esign-envelope-create.md');
      const text = readFileSync(page, 'utf8');
      writeFileSync(page, text.replace('Print only the signing URL', 'Print the signing URL only'));
      const edited = check(dir);
      expect(edited.status).toBe(1);
      expect(edited.stderr).toContain('docs/commands/esign-envelope-create.md differs from the table');
      expect(edited.stderr).toContain('npm run docs');
      writeFileSync(page, text);
      rmSync(join(dir, 'man', 'esign-envelope-batch.1'));
      writeFileSync(join(dir, 'man', 'esign-envelope-send.1'), '.TH OLD 1\n');
      const stale = check(dir);
      expect(stale.status).toBe(1);
      expect(stale.stderr).toContain('man/esign-envelope-batch.1 is missing');
      expect(stale.stderr).toContain('man/esign-envelope-send.1 is no command');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('package.json lists every man page under "man", and ships man/', () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
    expect(pkg.files).toContain('man/');
    const paths = [[], ...allPaths(commandTree())].map((path) => `./man/${['esign', ...path].join('-')}.1`);
    expect([...pkg.man].sort()).toEqual(paths.sort());
    const dir = pagesCopy();
    try {
      const copy = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
      copy.man = copy.man.slice(1);
      writeFileSync(join(dir, 'package.json'), JSON.stringify(copy));
      expect(check(dir).stderr).toContain('package.json "man" does not list exactly the man pages');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('every flag and command that --help shows is on the reference page and the man page; help <command> is --help', async () => {
    for (const path of [[], ...allPaths(commandTree())]) {
      const name = ['esign', ...path].join('-');
      const markdown = readFileSync(join(ROOT, 'docs', 'commands', `${name}.md`), 'utf8');
      // The man page's text, its roff escapes undone (test/e2e/man-install.test.ts reads it through man).
      const man = readFileSync(join(ROOT, 'man', `${name}.1`), 'utf8')
        .replaceAll('\\-', '-')
        .replaceAll('\\e', '\\');
      const help = await runCli([...path, '--help']);
      expect(help.code).toBe(0);
      if (path.length > 0) expect((await runCli(['help', ...path])).stdout).toBe(help.stdout);
      const flags = help.stdout.match(/^ {2}(?:-\w, )?--[\w-]+/gm) ?? [];
      expect(flags.length, name).toBeGreaterThan(0);
      for (const flag of flags.map((f) => f.trim())) {
        expect(markdown, `${name}: ${flag}`).toContain(flag);
        expect(man, `${name}: ${flag}`).toContain(flag);
      }
      // Every flag once: the flags and the global flags never list one twice.
      const spellings = flags.map((f) => f.trim().replace(/^-\w, /, ''));
      expect(new Set(spellings).size, name).toBe(spellings.length);
      for (const sub of commandTree().subcommands.filter(() => path.length === 0)) {
        expect(markdown).toContain(`esign ${sub.name}`);
      }
    }
  });
});
