// scripts/install.ps1 cannot run here (no Windows, no PowerShell in Debian's packages): its syntax is
// checked with the tree-sitter PowerShell grammar (tree-sitter-powershell's WebAssembly build, through
// web-tree-sitter), a parser that is not PowerShell's own, so this catches broken structure
// (braces, strings, here-strings, statements), not every error PowerShell would report. Plus what it
// shares with install.sh: the version and repository it was released with, and https only. And that
// it sets nothing in the caller's scope (run as documented, `irm … | iex`, its text runs in the
// user's session): its top level is one `& { … }`, and nothing inside names another scope.
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

function parse(text: string): Node {
  const tree = parser.parse(text);
  if (!tree) throw new Error('the parser returned no tree');
  return tree.rootNode;
}

/** Every node under `node` (itself included) of one of `types`. */
function nodesOf(node: Node, types: string[]): Node[] {
  const found = types.includes(node.type) ? [node] : [];
  for (const child of node.children) if (child) found.push(...nodesOf(child, types));
  return found;
}

/** The only variable the script may set outside its own scope: how `iex` learns it failed. */
const CALLER_VARIABLES = ['$global:LASTEXITCODE'];
/** Commands that set a variable, an alias or a module, which `-Scope`, `-Option AllScope` or `-Global` can put in the caller's scope. */
const SCOPE_COMMANDS = /^(set|new)-(variable|alias)$|^import-module$/i;
/** A scope or a provider drive that names one (`Set-Item function:global:X`, `New-Item variable:X`). */
const SCOPE_ARGUMENT = /(^|\s)-(scope|option|global)\b|\b(variable|function|alias):/i;

/**
 * What the script would leave in the session that ran it: its top-level statements other than
 * one `& { … }` (a scope of its own; `. { … }` would be the caller's), every variable it names in
 * another scope but $LASTEXITCODE, and every command that can set one there.
 */
function callerScopeProblems(text: string): string[] {
  const root = parse(text);
  const statements = root.namedChildren
    .filter((node) => node?.type === 'statement_list')
    .flatMap((list) => list?.namedChildren ?? [])
    .filter((node) => node?.type !== 'comment');
  const problems = statements.flatMap((statement) => {
    const command = statement?.firstNamedChild?.firstNamedChild;
    const operator = command?.firstChild;
    const block = command?.childForFieldName('command_name')?.firstNamedChild;
    const ownScope =
      statements.length === 1 &&
      command?.type === 'command' &&
      operator?.type === 'command_invokation_operator' &&
      operator.text === '&' &&
      block?.type === 'script_block_expression';
    return ownScope ? [] : [`top level: ${statement?.text.split('\n')[0]}`];
  });
  if (statements.length === 0) problems.push('top level: no statement');
  for (const variable of nodesOf(root, ['variable'])) {
    if (
      /^\$\{?(global|script|private|using):/i.test(variable.text) &&
      !CALLER_VARIABLES.includes(variable.text)
    )
      problems.push(`another scope: ${variable.text}`);
  }
  for (const command of nodesOf(root, ['command'])) {
    const name = command.childForFieldName('command_name')?.text ?? '';
    const elements = command.childForFieldName('command_elements')?.text ?? '';
    if (SCOPE_COMMANDS.test(name) || SCOPE_ARGUMENT.test(elements)) problems.push(`scope command: ${name}`);
  }
  return problems;
}

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
      script.replace('\n  }\n\n  function Install-Esign', '\n\n  function Install-Esign'),
      script.replace("Stop-Install 'curl.exe is not there", "Stop-Install 'curl.exe is not th'ere"),
      script.replace('if (-not (Test-PlainFile $target)) {', 'if (-not (Test-PlainFile $target) {'),
    ];
    for (const text of broken) {
      expect(text).not.toBe(script);
      expect(syntaxProblems(text)).not.toEqual([]);
    }
  });

  it('sets nothing in the scope that runs it (irm | iex): one `& { … }` at the top level, no other scope named', () => {
    expect(callerScopeProblems(script)).toEqual([]);
    // What it used to do, and other ways to leak, are each found.
    const leaking: [string, string][] = [
      [
        script.replace('& {\n', "$ErrorActionPreference = 'Stop'\n& {\n"),
        "top level: $ErrorActionPreference = 'Stop'",
      ],
      [
        script.replace('& {\n', 'Set-StrictMode -Version 3.0\n& {\n'),
        'top level: Set-StrictMode -Version 3.0',
      ],
      [script.replace('& {\n', '. {\n'), 'top level: . {'],
      [`${script}function Install-Esign { }\n`, 'top level: function Install-Esign { }'],
      [script.replace('$Failure = @{', '$script:Failure = @{'), 'another scope: $script:Failure'],
      // biome-ignore lint/suspicious/noTemplateCurlyInString: PowerShell's ${scope:name} variable, not a template.
      [script.replace('$Failure = @{', '${global:Failure} = @{'), 'another scope: ${global:Failure}'],
      [
        script.replace('$Failure = @{', 'Set-Variable -Name Failure -Scope Global -Value 1\n  $Failure = @{'),
        'scope command: Set-Variable',
      ],
      [
        script.replace('$Failure = @{', 'New-Item -Path variable:global:Failure -Value 1\n  $Failure = @{'),
        'scope command: New-Item',
      ],
    ];
    for (const [text, problem] of leaking) {
      expect(syntaxProblems(text)).toEqual([]);
      expect(callerScopeProblems(text)).toContain(problem);
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
