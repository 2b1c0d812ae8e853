// The `require` every file of dist/ starts with (scripts/bundle-options.mjs): the bundled CommonJS
// libraries require only Node's built-ins, so it is process.getBuiltinModule, and it fails as
// require does for anything else (a library that tries an optional module catches that).
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
// @ts-expect-error: build scripts in plain JavaScript, without type declarations
import { distBuildOptions } from '../../scripts/bundle-options.mjs';

const bundleRequire = new Function(`${distBuildOptions.banner.js}\nreturn require;`)() as (
  id: string,
) => unknown;

describe("the bundle's require", () => {
  it("gives Node's built-ins, named with node: or without", () => {
    const require = createRequire(import.meta.url);
    for (const id of ['node:fs', 'fs', 'node:util/types', 'node:stream'])
      expect(bundleRequire(id)).toBe(require(id));
  });

  it('throws MODULE_NOT_FOUND, with the name, for anything else', () => {
    for (const id of ['left-pad', './local.js', 'node:nope']) {
      expect(() => bundleRequire(id)).toThrow(
        expect.objectContaining({ code: 'MODULE_NOT_FOUND', message: `Cannot find module '${id}'` }),
      );
    }
  });
});
