// The libraries inside esign's bundle. dist/ is one esbuild build of src/ with every library it
// imports (scripts/build.mjs), so the npm package installs nothing: the libraries are build inputs,
// and this module says which ones went in, from esbuild's own record of the files it read (its
// metafile). Two uses: THIRD-PARTY-LICENSES.txt, written by the build and shipped in the package (each
// library's licence, as the library ships it), and the SBOM, written by the release
// (scripts/release.mjs), which names each of them with its exact version and licence.
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export const LICENSES_FILE = 'THIRD-PARTY-LICENSES.txt';

/** A package's folder in an input path (`node_modules/a/node_modules/@s/b/lib/x.js` → `…/@s/b`). */
function packageFolder(input) {
  const found = /^(.*node_modules\/(?:@[^/]+\/)?[^/]+)\//.exec(input);
  return found?.[1];
}

/**
 * Every npm package esbuild took a file from, as installed under `root`: its folder (relative, as
 * npm's lockfile and `cdx:npm:package:path` write it), name, version and declared licence; sorted by
 * folder, each once.
 */
export function bundledPackages(metafile, root) {
  const folders = new Set();
  for (const input of Object.keys(metafile.inputs)) {
    const folder = packageFolder(input);
    if (folder) folders.add(folder);
  }
  const packages = [...folders].map((folder) => {
    const pkg = JSON.parse(readFileSync(join(root, folder, 'package.json'), 'utf8'));
    return { folder, name: pkg.name, version: pkg.version, license: declaredLicense(pkg) };
  });
  return packages.sort(
    (a, b) => a.name.localeCompare(b.name, 'en') || a.folder.localeCompare(b.folder, 'en'),
  );
}

function declaredLicense(pkg) {
  if (typeof pkg.license === 'string') return pkg.license;
  if (typeof pkg.license?.type === 'string') return pkg.license.type;
  return 'UNKNOWN';
}

const LICENSE_NAME = /^(licen[cs]e|copying|notice)([.-].*)?$/i;

/** The licence texts a package ships (LICENSE, LICENCE, COPYING, NOTICE, any extension), by name. */
function licenseTexts(root, folder) {
  const dir = join(root, folder);
  return readdirSync(dir)
    .filter((name) => LICENSE_NAME.test(name) && existsSync(join(dir, name)))
    .sort()
    .map((name) => ({ name, text: readFileSync(join(dir, name), 'utf8').trim() }));
}

/** THIRD-PARTY-LICENSES.txt: one section a package, its licence text as the package ships it. */
export function writeThirdPartyLicenses(packages, root, file) {
  const rule = '='.repeat(78);
  const sections = packages.map((pkg) => {
    const texts = licenseTexts(root, pkg.folder);
    const body =
      texts.length > 0
        ? texts.map((each) => `--- ${each.name}\n\n${each.text}`).join('\n\n')
        : `(${pkg.name} ships no licence file; its package.json declares the licence ${pkg.license})`;
    return `${rule}\n${pkg.name}@${pkg.version}    licence: ${pkg.license}\n${rule}\n\n${body}\n`;
  });
  const head = [
    'The libraries inside esign (dist/ is one build of esign and the libraries it uses, so the package',
    'installs none of them). Each with its exact version and the licence text it ships. The release',
    "SBOM (esign-<version>.cdx.json) names the same libraries, in CycloneDX's form.",
    '',
    ...packages.map((pkg) => `  ${pkg.name}@${pkg.version}  (${pkg.license})`),
    '',
  ].join('\n');
  writeFileSync(file, `${head}\n${sections.join('\n')}`);
}
