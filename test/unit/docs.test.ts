// The README and the guides in docs/ (issue 38): the README stays a front door (short, the two
// set-up commands first), every relative link between them leads to a file and a heading that
// exist, the exit codes read the same in docs/exit-codes.md as in `esign help exit-codes`, the
// completion install lines as in `esign completion --help`, and no figure that drifts (a test
// count, a size in MB) is written into them.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/context.js';

const ROOT = resolve(import.meta.dirname, '../..');

/** README.md and every Markdown file under docs/, as absolute paths. */
function documents(): string[] {
  const found = [join(ROOT, 'README.md')];
  const walk = (dir: string): void => {
    for (const name of readdirSync(dir).sort()) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (name.endsWith('.md')) found.push(path);
    }
  };
  walk(join(ROOT, 'docs'));
  return found;
}

/** The text outside fenced code blocks and inline code, where a link is a link. */
function prose(text: string): string {
  return text.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '').replace(/`[^`\n]*`/g, '');
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens. */
function slug(heading: string): string {
  return heading
    .replace(/`/g, '')
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

/** The anchors a Markdown text offers: one per heading, repeats numbered as GitHub numbers them. */
function anchors(text: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  const withoutCode = text.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '');
  for (const match of withoutCode.matchAll(/^#{1,6} +(.+?) *#*$/gm)) {
    const base = slug(match[1] as string);
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    out.add(count === 0 ? base : `${base}-${count}`);
  }
  return out;
}

/** Every relative link of a Markdown file that leads nowhere: `file: target (why)`. */
function brokenLinks(path: string, text: string, read = (p: string) => readFileSync(p, 'utf8')) {
  const problems: string[] = [];
  for (const match of prose(text).matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
    const target = match[1] as string;
    if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // https:, mailto: and the like
    const [file = '', fragment] = target.split('#', 2);
    const name = relative(ROOT, path);
    if (file === '') {
      if (fragment !== undefined && !anchors(text).has(fragment))
        problems.push(`${name}: ${target} (no such heading here)`);
      continue;
    }
    const resolved = resolve(dirname(path), decodeURI(file));
    if (!existsSync(resolved)) {
      problems.push(`${name}: ${target} (no such file)`);
      continue;
    }
    if (fragment === undefined || !resolved.endsWith('.md')) continue;
    if (!anchors(read(resolved)).has(fragment))
      problems.push(`${name}: ${target} (no heading with that anchor in ${relative(ROOT, resolved)})`);
  }
  return problems;
}

describe('README.md, the front door', () => {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');

  it('is at most 250 lines, with the two commands for a fresh machine in its first lines', () => {
    const lines = readme.split('\n');
    expect(lines.length).toBeLessThanOrEqual(250);
    const top = lines.slice(0, 10).join('\n');
    expect(top).toContain('npm ci && npm run demo');
    expect(top).toMatch(/^npm test\b/m);
  });

  it('points at every guide in docs/', () => {
    const guides = readdirSync(join(ROOT, 'docs')).filter((name) => name.endsWith('.md'));
    expect(guides.length).toBeGreaterThan(5);
    for (const guide of guides) expect(readme, guide).toContain(`](docs/${guide}`);
  });
});

describe('links between the README and the guides', () => {
  it('finds a link to a missing file and to a missing heading (the check can fail)', () => {
    const path = join(ROOT, 'docs', 'example.md');
    const text = [
      '# Example',
      '[fine](#example) [not here](#elsewhere) [gone](nowhere.md) [no anchor](../README.md#no-such-heading)',
      '`[in code](nowhere.md)`',
      '```md',
      '[in a block](nowhere-either.md)',
      '```',
      '[web](https://example.com/x.md)',
    ].join('\n');
    expect(brokenLinks(path, text)).toEqual([
      'docs/example.md: #elsewhere (no such heading here)',
      'docs/example.md: nowhere.md (no such file)',
      'docs/example.md: ../README.md#no-such-heading (no heading with that anchor in README.md)',
    ]);
  });

  it('every relative link in README.md and docs/ leads to a file and a heading that exist', () => {
    const files = documents();
    expect(files.length).toBeGreaterThan(5);
    const problems = files.flatMap((path) => brokenLinks(path, readFileSync(path, 'utf8')));
    expect(problems).toEqual([]);
  });
});

describe('figures and tables that could drift', () => {
  it('docs/exit-codes.md says what `esign help exit-codes` says, code by code', async () => {
    const help = (await runCli(['help', 'exit-codes'])).stdout;
    const fromHelp = new Map<string, string>();
    let code = '';
    for (const line of help.split('\n')) {
      const start = /^ {2}(\d+) +(.*)$/.exec(line);
      if (start) {
        code = start[1] as string;
        fromHelp.set(code, start[2] as string);
      } else if (code && /^ {4,}\S/.test(line)) fromHelp.set(code, `${fromHelp.get(code)} ${line.trim()}`);
      else code = '';
    }
    const guide = readFileSync(join(ROOT, 'docs/exit-codes.md'), 'utf8');
    const fromGuide = new Map(
      [...guide.matchAll(/^\| (\d+) \| (.+) \|$/gm)].map((m) => [m[1] as string, m[2] as string]),
    );
    expect(fromHelp.size).toBeGreaterThanOrEqual(11);
    const plain = (map: Map<string, string>) =>
      Object.fromEntries([...map].map(([key, value]) => [key, value.replace(/`/g, '')]));
    expect(plain(fromGuide)).toEqual(plain(fromHelp));
  });

  it('docs/install.md installs completion with the lines `esign completion --help` prints', async () => {
    const help = (await runCli(['completion', '--help'])).stdout;
    const lines = [...help.matchAll(/^ {2}\$ (.*esign completion .*)$/gm)].map((m) => m[1] as string);
    expect(lines.length).toBeGreaterThanOrEqual(3);
    const guide = readFileSync(join(ROOT, 'docs/install.md'), 'utf8');
    for (const line of lines) expect(guide, line).toContain(line);
  });

  it('no test count or size in MB is written into the README or a guide', () => {
    for (const path of documents()) {
      const text = readFileSync(path, 'utf8');
      expect(text, relative(ROOT, path)).not.toMatch(/\b\d[\d,]* tests\b/);
      expect(text, relative(ROOT, path)).not.toMatch(/\b\d+(\.\d+)? MB\b/);
    }
  });
});
