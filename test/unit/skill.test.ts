// The agent skill shipped in the package (skills/esign/SKILL.md): in the tarball, with the front
// matter agents read (name, description), and every esign command line it shows made of commands
// and flags that exist, and exit codes that are the contract's, so that an agent following it
// never meets an unknown flag.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { CommandTree } from '../../src/command-types.js';
import { commandTree } from '../../src/commands/table.js';
import { ExitCode } from '../../src/errors.js';

const ROOT = resolve(import.meta.dirname, '../..');
const SKILL = readFileSync(resolve(ROOT, 'skills/esign/SKILL.md'), 'utf8');

/** The command lines the skill shows: in code blocks (continuations joined) and inline code. */
function commandLines(text: string): string[] {
  const blocks = [...text.matchAll(/```sh\n([\s\S]*?)```/g)].flatMap((match) =>
    (match[1] ?? '').replace(/\\\n\s*/g, ' ').split('\n'),
  );
  const inline = [...text.matchAll(/`(esign [^`]+)`/g)].map((match) => match[1] ?? '');
  return [...blocks, ...inline]
    .map((line) => line.replace(/\s+#.*$/, '').trim())
    .filter((line) => line.startsWith('esign '));
}

/** The command a line runs, and the flags it and its parents take. */
function flagsFor(tree: CommandTree, words: string[]): { path: string; flags: Set<string> } {
  const flags = new Set<string>(tree.options.flatMap((option) => option.flags));
  let at = tree;
  const path = ['esign'];
  for (const word of words) {
    const next = at.subcommands.find((command) => command.name === word || command.aliases.includes(word));
    if (!next) break;
    at = next;
    path.push(word);
    for (const option of at.options) for (const flag of option.flags) flags.add(flag);
  }
  return { path: path.join(' '), flags };
}

describe('skills/esign/SKILL.md', () => {
  it('ships in the package, with a name and a description', () => {
    const pkg = JSON.parse(readFileSync(resolve(ROOT, 'package.json'), 'utf8'));
    expect(pkg.files).toContain('skills/');
    const packed = JSON.parse(
      execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], {
        cwd: ROOT,
        encoding: 'utf8',
      }),
    )[0].files.map((file: { path: string }) => file.path);
    expect(packed).toContain('skills/esign/SKILL.md');
    const front = /^---\n([\s\S]*?)\n---\n/.exec(SKILL)?.[1] ?? '';
    expect(/^name: esign$/m.test(front)).toBe(true);
    const description = /^description: (.+)$/m.exec(front)?.[1] ?? '';
    expect(description.length).toBeGreaterThan(50);
    expect(description.length).toBeLessThanOrEqual(1024);
    for (const topic of ['--dry-run', '--json', 'exit codes', 'outcome_unknown', 'environment'])
      expect(SKILL.toLowerCase()).toContain(topic.toLowerCase());
  });

  it('every esign command line it shows uses commands and flags that exist', () => {
    const tree = commandTree();
    const lines = commandLines(SKILL);
    expect(lines.length).toBeGreaterThan(8);
    for (const line of lines) {
      const words = line.split(/\s+/).slice(1);
      const { path, flags } = flagsFor(tree, words);
      expect(path, line).not.toBe('esign');
      for (const word of words.filter((w) => w.startsWith('--'))) {
        expect(flags.has(word.split('=')[0] as string), `${line}: ${word} is not a flag of ${path}`).toBe(
          true,
        );
      }
    }
  });

  it('the exit codes it lists are the contract’s', () => {
    const listed = [...SKILL.matchAll(/^\| (\d+) \|/gm)].map((match) => Number(match[1]));
    expect(listed).toEqual([0, 2, 3, 4, 5, 6, 7, 8, 9]);
    const known = new Set<number>(Object.values(ExitCode));
    for (const code of listed) expect(known.has(code), String(code)).toBe(true);
    expect(SKILL).toMatch(/\| 6 \| network failure; \*\*with code `outcome_unknown`/);
    expect(ExitCode.network).toBe(6);
  });
});
