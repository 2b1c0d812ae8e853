// `npm run docs`: writes the reference page (docs/commands/esign-<path>.md) and the man page
// (man/esign-<path>.1) of every command from the command table (src/commands/reference-pages.ts),
// and lists the man pages under "man" in package.json, so that `npm install -g` installs them.
// `node scripts/docs.mjs --check` (part of `npm run check`) writes nothing and fails when a page,
// or that list, differs from what the table makes: a page edited by hand, or a declaration changed
// without regenerating.
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';

const root = join(import.meta.dirname, '..');
const check = process.argv.includes('--check');
// --pages <dir>: the folder holding docs/commands/, man/ and package.json (the checkout by default;
// the tests check a copy).
const pagesArg = process.argv.indexOf('--pages');
const pages = pagesArg === -1 ? root : process.argv[pagesArg + 1];

const esbuild = await import('esbuild');
const out = join(root, 'node_modules', '.cache', 'esign-docs', `reference-pages-${process.pid}.mjs`);
mkdirSync(dirname(out), { recursive: true });
await esbuild.build({
  entryPoints: [join(root, 'src/commands/reference-pages.ts')],
  bundle: true,
  platform: 'node',
  format: 'esm',
  outfile: out,
  logLevel: 'warning',
});
const { referenceFiles } = await import(pathToFileURL(out).href);
rmSync(out);
const files = referenceFiles();

const GENERATED_FOLDERS = { 'docs/commands': '.md', man: '.1' };
/** The generated files on disk now. */
function onDisk() {
  return Object.entries(GENERATED_FOLDERS).flatMap(([folder, ending]) => {
    try {
      return readdirSync(join(pages, folder))
        .filter((name) => name.endsWith(ending))
        .map((name) => `${folder}/${name}`);
    } catch {
      return [];
    }
  });
}

const packagePath = join(pages, 'package.json');
const packageText = readFileSync(packagePath, 'utf8');
const pkg = JSON.parse(packageText);
const manList = Object.keys(files)
  .filter((path) => path.startsWith('man/'))
  .map((path) => `./${path}`);

const problems = [];
for (const [path, content] of Object.entries(files)) {
  let current;
  try {
    current = readFileSync(join(pages, path), 'utf8');
  } catch {
    current = undefined;
  }
  if (current === content) continue;
  if (check) problems.push(current === undefined ? `${path} is missing` : `${path} differs from the table`);
  else {
    mkdirSync(dirname(join(pages, path)), { recursive: true });
    writeFileSync(join(pages, path), content);
  }
}
for (const path of onDisk().filter((path) => !(path in files))) {
  if (check) problems.push(`${path} is no command's page`);
  else rmSync(join(pages, path));
}
if (JSON.stringify(pkg.man) !== JSON.stringify(manList)) {
  if (check) problems.push('package.json "man" does not list exactly the man pages');
  else {
    pkg.man = manList;
    writeFileSync(packagePath, `${JSON.stringify(pkg, null, 2)}\n`);
  }
}

if (problems.length > 0) {
  console.error(
    `The reference and man pages are not what the command table makes:\n  ${problems.join('\n  ')}\nRun \`npm run docs\` (and edit the declarations in src/commands/, not the pages).`,
  );
  process.exit(1);
}
if (!check) console.log(`Wrote ${Object.keys(files).length} pages from the command table.`);
