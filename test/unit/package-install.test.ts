// What npm runs when someone installs esign: nothing. npm (11+) warns about every install script not
// allowed by `allowScripts`, on `npm install -g .` and on the packed tarball alike (which held a
// `prepare` whose script it does not even ship). The build is an explicit step instead.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8'));
const INSTALL_SCRIPTS = ['preinstall', 'install', 'postinstall', 'prepare'];

describe('package.json', () => {
  it('has no script npm runs on install', () => {
    expect(Object.keys(pkg.scripts).filter((name) => INSTALL_SCRIPTS.includes(name))).toEqual([]);
  });

  it('still builds before packing, so the tarball holds dist/', () => {
    expect(pkg.scripts.prepack).toBe('npm run build');
    expect(pkg.files).toContain('dist/');
  });
});
