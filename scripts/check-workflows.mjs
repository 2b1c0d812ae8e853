// `npm run check`: the GitHub Actions files read as GitHub reads them, so a typo fails here and not on
// the first tag. Each workflow in .github/workflows/ and action.yml goes through GitHub's own parser
// (@actions/workflow-parser, the one behind the Actions language service: the workflow and action
// schemas, expressions, contexts, permission names such as `attestations: write`), then through
// this project's rules:
//   - every action a step uses is pinned to a full commit SHA, with the tag it was in a comment
//     (`uses: actions/checkout@<40 hex> # v7.0.1`): a tag can be moved, a commit cannot;
//   - a workflow grants no permission at its top level (`permissions: {}`), and every job says
//     which it needs: each job gets the least, and a new job gets none by default.
//
//   node scripts/check-workflows.mjs                  the workflows and action.yml of this checkout
//   node scripts/check-workflows.mjs FILE...          these (a file named action.yml/action.yaml is
//                                                     read as an action, any other as a workflow)
// Prints each problem as `file:line:column: message` and exits 1 when there is any.
//
// @actions/workflow-parser 0.3.61 imports its schema files as JSON modules without the `type: json`
// attribute that Node requires (actions/languageservices#387): it loads in a bundler only. esbuild
// (already the build's bundler) bundles it in memory, as published, and the bundle is imported.
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join, relative, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';

const root = resolve(import.meta.dirname, '..');
const FULL_SHA = /^[0-9a-f]{40}$/;

const files = process.argv.slice(2);
const targets = files.length > 0 ? files.map((file) => resolve(file)) : projectFiles();
const parser = await loadParser();
const problems = [];
for (const file of targets) problems.push(...(await checkFile(parser, file)));
for (const problem of problems) console.error(problem);
if (problems.length > 0) {
  console.error(`${problems.length} problem(s) in the GitHub Actions files.`);
  process.exit(1);
}
console.log(`GitHub Actions files valid: ${targets.map((file) => relative(root, file)).join(', ')}`);

function projectFiles() {
  const folder = join(root, '.github', 'workflows');
  const workflows = readdirSync(folder)
    .filter((name) => /\.ya?ml$/.test(name))
    .sort()
    .map((name) => join(folder, name));
  return [...workflows, join(root, 'action.yml')];
}

async function loadParser() {
  const bundled = await build({
    stdin: {
      contents: [
        "export { parseWorkflow, convertWorkflowTemplate, NoOperationTraceWriter } from '@actions/workflow-parser';",
        "export { parseAction } from '@actions/workflow-parser/actions/index';",
      ].join('\n'),
      resolveDir: root,
      loader: 'js',
    },
    bundle: true,
    write: false,
    format: 'esm',
    platform: 'node',
    // yaml, inside it, is CommonJS and requires Node's built-ins.
    banner: {
      js: "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);",
    },
    logLevel: 'error',
  });
  const folder = mkdtempSync(join(tmpdir(), 'esign-workflow-parser-'));
  try {
    const file = join(folder, 'workflow-parser.mjs');
    writeFileSync(file, bundled.outputFiles[0].contents);
    return await import(pathToFileURL(file).href);
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}

async function checkFile(parser, file) {
  const name = relative(process.cwd(), file) || basename(file);
  let content;
  try {
    content = readFileSync(file, 'utf8');
  } catch (error) {
    return [`${name}: cannot be read (${error.code ?? error.message})`];
  }
  const isAction = /^action\.ya?ml$/.test(basename(file));
  const trace = new parser.NoOperationTraceWriter();
  const source = { name, content };
  const result = isAction ? parser.parseAction(source, trace) : parser.parseWorkflow(source, trace);
  const problems = result.context.errors.getErrors().map((error) => parserProblem(name, error));
  if (!isAction && result.value && problems.length === 0) {
    // The conversion finds what the schema cannot: unknown `needs`, cycles, bad matrices.
    const template = await parser.convertWorkflowTemplate(result.context, result.value);
    for (const error of template.errors ?? []) problems.push(parserProblem(name, { message: error.Message }));
  }
  if (!result.value || problems.length > 0) return problems;
  const lines = content.split(/\r?\n/);
  problems.push(...pinProblems(name, result.value, lines));
  if (!isAction) problems.push(...permissionProblems(name, result.value));
  return problems;
}

/** The parser's message already names the file, line and column (`name (Line: 9, Col: 7): …`). */
function parserProblem(name, error) {
  const found = /^(.*) \(Line: (\d+), Col: (\d+)\): (.*)$/s.exec(error.message);
  return found ? `${name}:${found[2]}:${found[3]}: ${found[4]}` : `${name}: ${error.message}`;
}

function at(name, token) {
  return `${name}:${token.range?.start.line ?? 0}:${token.range?.start.column ?? 0}`;
}

/** Every `uses:` in the file (job steps, composite steps, reusable workflows), with its token. */
function* usesTokens(token) {
  if (isMapping(token)) {
    for (const { key, value } of token) {
      if (key.value === 'uses' && typeof value.value === 'string') yield value;
      else yield* usesTokens(value);
    }
  } else if (isSequence(token)) {
    for (const item of token) yield* usesTokens(item);
  }
}

function pinProblems(name, document, lines) {
  const problems = [];
  for (const token of usesTokens(document)) {
    const uses = token.value;
    if (uses.startsWith('./') || uses.startsWith('docker://')) continue;
    const ref = uses.slice(uses.lastIndexOf('@') + 1);
    if (!uses.includes('@') || !FULL_SHA.test(ref)) {
      problems.push(
        `${at(name, token)}: "${uses}" is not pinned to a full commit SHA: use owner/repo@<40 hex digits> # <tag>`,
      );
      continue;
    }
    const line = lines[(token.range?.start.line ?? 1) - 1] ?? '';
    if (!/#\s*\S/.test(line.slice(line.indexOf(ref) + ref.length))) {
      problems.push(`${at(name, token)}: "${uses}" has no comment naming its tag (# vX.Y.Z)`);
    }
  }
  return problems;
}

function permissionProblems(name, document) {
  const problems = [];
  const top = document.find('permissions');
  if (!top || !isMapping(top) || top.count > 0) {
    problems.push(
      `${at(name, top ?? document)}: the workflow must grant no permission at its top level (permissions: {}); each job names its own`,
    );
  }
  const jobs = document.find('jobs');
  for (const { key, value } of jobs && isMapping(jobs) ? jobs : []) {
    if (isMapping(value) && !value.find('permissions')) {
      problems.push(
        `${at(name, key)}: job "${key.value}" does not say which permissions it needs (permissions:)`,
      );
    }
  }
  return problems;
}

function isMapping(token) {
  return typeof token?.find === 'function' && typeof token?.count === 'number';
}

function isSequence(token) {
  return (
    !isMapping(token) && typeof token?.[Symbol.iterator] === 'function' && typeof token?.count === 'number'
  );
}
