// The engine does not speak the command line (issue 38): no string or template literal in
// src/batch/ names a command-line flag. It returns kinds with their figures (a record that waited
// past its budget, results that cannot be resumed); the command (src/commands/envelope/) words them
// and names the flags. Comments may name flags: they explain, they are not output.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');
const FLAG = /(^|[^\w-])--[a-z]/;

function sourcesUnder(dir: string): string[] {
  return readdirSync(dir)
    .sort()
    .flatMap((name) => {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) return sourcesUnder(path);
      return name.endsWith('.ts') ? [path] : [];
    });
}

/** Every string and template literal of a TypeScript source that names a flag: `line: text`. */
function flagsNamed(fileName: string, source: string): string[] {
  const file = ts.createSourceFile(fileName, source, ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    if (
      ts.isStringLiteral(node) ||
      ts.isNoSubstitutionTemplateLiteral(node) ||
      ts.isTemplateHead(node) ||
      ts.isTemplateMiddle(node) ||
      ts.isTemplateTail(node)
    ) {
      if (FLAG.test(node.text)) {
        const { line } = file.getLineAndCharacterOfPosition(node.getStart(file));
        found.push(`${line + 1}: ${node.text}`);
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return found;
}

describe('the batch engine names no command-line flag', () => {
  it('finds a flag in a string, a template literal and its parts, and not in a comment (the check can fail)', () => {
    const source = [
      '// --resume in a comment is fine',
      '/** and in a doc comment: --max-rate-wait */',
      "const a = 'run with --resume';",
      `const b = \`past --max-rate-wait ${'${'}budget} and --retry-unknown\`;`,
      `const c = \`waited ${'${'}ms} --rate\`;`,
      "const d = 'a-b--c, x -- y, 1--2';",
    ].join('\n');
    expect(flagsNamed('example.ts', source)).toEqual([
      '3: run with --resume',
      '4: past --max-rate-wait ',
      '4:  and --retry-unknown',
      '5:  --rate',
    ]);
  });

  it('in src/batch/', () => {
    const files = sourcesUnder(join(ROOT, 'src/batch'));
    expect(files.length).toBeGreaterThan(10);
    const named = files.flatMap((path) =>
      flagsNamed(path, readFileSync(path, 'utf8')).map((hit) => `${relative(ROOT, path)}:${hit}`),
    );
    expect(named).toEqual([]);
  });
});
