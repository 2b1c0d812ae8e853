// jsonc-parser is imported through its public entry, and the bundle takes its ES-module build
// (`mainFields`, scripts/bundle-options.mjs). Here a copy of the project whose jsonc-parser's UMD
// build cannot load, with the manifest as 3.3.0 published it (an `exports` map that exposes only
// the entry, no deep path) and as 3.3.1 did (no map: `main` is the UMD build, `module` the ES one):
// built with the project's own build script, it bundles the ES-module build and reads and edits
// JSON through it (a --data file with an error; `templates set`).
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { projectWithOwnCopyOf, scriptTextUnder } from '../helpers/project-copy.js';
import { freshConfigDir, runBin } from '../helpers/spawn.js';

const run = promisify(execFile);
const TEMPLATE = '01JD7X4ZQ8G1N6RVS0Y2MBKT3E';

/** 3.3.0's `exports` map, as published. */
const EXPORTS_330 = {
  types: './lib/umd/main.d.ts',
  import: './lib/esm/main.js',
  require: './lib/umd/main.js',
  browser: './lib/esm/main.js',
};

/** jsonc-parser's manifest as `version` published it, and a UMD build that fails wherever it is loaded. */
function asPublished(jsonc: string, version: string, exports: object | undefined): void {
  const manifest = JSON.parse(readFileSync(join(jsonc, 'package.json'), 'utf8'));
  expect(manifest.main).toBe('./lib/umd/main.js');
  expect(manifest.module).toBe('./lib/esm/main.js');
  const published = { ...manifest, version, ...(exports ? { exports } : {}) };
  if (!exports) delete published.exports;
  writeFileSync(join(jsonc, 'package.json'), JSON.stringify(published, null, 2));
  writeFileSync(join(jsonc, 'lib', 'umd', 'main.js'), "throw new Error('the UMD build was bundled');\n");
}

describe('jsonc-parser through its public entry', () => {
  it.each([
    ['3.3.0', EXPORTS_330],
    ['3.3.1', undefined],
  ])('builds against %s with the ES-module build, which reads and edits JSON', async (version, exports) => {
    const { project, dependency: jsonc } = projectWithOwnCopyOf('jsonc-parser');
    asPublished(jsonc, version, exports);
    const build = await run(process.execPath, [join(project, 'scripts', 'build.mjs')], { cwd: project });
    expect(build.stderr).toBe('');
    const bundle = scriptTextUnder(join(project, 'dist'));
    expect(bundle).not.toContain('the UMD build was bundled');
    expect(bundle).toContain('createScanner');

    const bin = join(project, 'bin', 'esign.js');
    const work = mkdtempSync(join(tmpdir(), 'esign-jsonc-work-'));
    const env = { ESIGN_CONFIG_DIR: freshConfigDir() };
    writeFileSync(join(work, 'bad.json'), '{"company": "Acme",,}');
    const dryRun = await runBin(
      [
        'envelope',
        'create',
        '--dry-run',
        '--template',
        TEMPLATE,
        '--name',
        'Ada Lovelace',
        '--email',
        'ada@example.com',
        '--data',
        'bad.json',
      ],
      { bin, env, cwd: work },
    );
    expect(dryRun.code).toBe(2);
    expect(dryRun.stderr).toContain(
      "--data bad.json: invalid JSON at line 1, column 20: expected a property name in double quotes, found ','.",
    );

    writeFileSync(join(work, '.esign.json'), '{\n    "templates": {}\n}\n');
    const set = await runBin(['templates', 'set', 'offer-letter', TEMPLATE], { bin, env, cwd: work });
    expect(set.stderr).toContain("Added 'offer-letter'");
    expect(set.code).toBe(0);
    expect(readFileSync(join(work, '.esign.json'), 'utf8')).toBe(
      `{\n    "templates": {\n        "offer-letter": "${TEMPLATE}"\n    }\n}\n`,
    );
  });
});
