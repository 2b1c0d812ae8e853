// scripts/install.ps1 cannot run here (no Windows, no PowerShell in Debian's packages): its syntax is
// checked with the tree-sitter PowerShell grammar (tree-sitter-powershell's WebAssembly build, through
// web-tree-sitter), a parser that is not PowerShell's own, so this catches broken structure
// (braces, strings, here-strings, statements), not every error PowerShell would report. Plus what it
// shares with install.sh: the version and repository it was released with, and https only.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { resolve } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { Language, type Node, Parser } from 'web-tree-sitter';

const require = createRequire(import.meta.url);
const SCRIPT = resolve(import.meta.dirname, '../../scripts/install.ps1');
const script = readFileSync(SCRIPT, 'utf8');
const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8'));
const REPOSITORY = /github\.com[/:]([^/]+\/[^/]+?)(?:\.git)?$/.exec(pkg.repository.url)?.[1] ?? '';

let parser: Parser;
beforeAll(async () => {
  await Parser.init();
  parser = new Parser();
  parser.setLanguage(
    await Language.load(require.resolve('tree-sitter-powershell/tree-sitter-powershell.wasm')),
  );
});

/** Every place the grammar could not read: `line:column: error|missing <what>`. */
function syntaxProblems(text: string): string[] {
  const tree = parser.parse(text);
  if (!tree) throw new Error('the parser returned no tree');
  const problems: string[] = [];
  const walk = (node: Node) => {
    if (node.isError || node.isMissing) {
      const { row, column } = node.startPosition;
      problems.push(`${row + 1}:${column + 1}: ${node.isMissing ? `missing ${node.type}` : 'error'}`);
    }
    for (const child of node.children) if (child) walk(child);
  };
  walk(tree.rootNode);
  return problems;
}

describe('scripts/install.ps1', () => {
  it('parses with no error', () => {
    expect(syntaxProblems(script)).toEqual([]);
  });

  it('the check finds an extra or a missing brace, an unclosed string and an unclosed parenthesis', () => {
    const broken = [
      script.replace('function Test-PlainFile([string]$Path) {', 'function Test-PlainFile([string]$Path) {{'),
      script.replace('\n}\n\nfunction Install-Esign', '\n\nfunction Install-Esign'),
      script.replace("Stop-Install 'curl.exe is not there", "Stop-Install 'curl.exe is not th'ere"),
      script.replace('if (-not (Test-PlainFile $target)) {', 'if (-not (Test-PlainFile $target) {'),
    ];
    for (const text of broken) {
      expect(text).not.toBe(script);
      expect(syntaxProblems(text)).not.toEqual([]);
    }
  });

  it('installs the version it was released with, and checks provenance against package.json’s repository', () => {
    expect(script).toContain(`$ReleaseVersion = '${pkg.version}'`);
    expect(script).toContain(`$ReleaseRepository = '${REPOSITORY}'`);
  });

  it('downloads over https only, redirects included, as install.sh does', () => {
    expect(script).toContain("--proto-redir '=https'");
    expect(script).toMatch(/\$protocols = if \(\$Scheme -eq 'https'\) \{ '=https' \}/);
    expect(script).toContain("'^http://(127\\.0\\.0\\.1|localhost)(:[0-9]+)?(/|$)'");
  });
});
