// The build's patches that keep node:child_process (commander) and node:http2 (undici) out of
// start-up (scripts/lazy-builtins.mjs), checked against the installed copies: an upgrade that
// changes the patched text, or Node's HTTP/2 constants, fails here by name.
import { readFileSync } from 'node:fs';
import { constants } from 'node:http2';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';

const require = createRequire(import.meta.url);
const PLUGIN = resolve(import.meta.dirname, '../../scripts/lazy-builtins.mjs');

interface LazyBuiltins {
  HTTP2_CONSTANTS: Record<string, string | number>;
  patchSource(path: string, source: string): string;
}
const load = async () => (await import(pathToFileURL(PLUGIN).href)) as LazyBuiltins;

const patched = [
  {
    file: join(dirname(require.resolve('commander')), 'lib', 'command.js'),
    builtin: 'node:child_process',
  },
  { file: require.resolve('undici/lib/dispatcher/client-h2.js'), builtin: 'node:http2' },
];

describe('lazy built-ins', () => {
  it('hold the HTTP/2 constants undici reads as Node defines them', async () => {
    const { HTTP2_CONSTANTS } = await load();
    const nodes = constants as unknown as Record<string, string | number>;
    for (const [name, value] of Object.entries(HTTP2_CONSTANTS)) expect(nodes[name], name).toBe(value);
    // Every constant client-h2.js takes from http2 is one of them.
    const source = readFileSync(require.resolve('undici/lib/dispatcher/client-h2.js'), 'utf8');
    const block = /const \{\s*constants: \{([^}]*)\}\s*\} = http2/.exec(source)?.[1] ?? '';
    const read = block.split(',').map((name) => name.trim());
    expect(read.length).toBeGreaterThan(0);
    expect(read.sort()).toEqual(Object.keys(HTTP2_CONSTANTS).sort());
  });

  it.each(patched)('patch $file: the built-in is required only when used', async ({ file, builtin }) => {
    const { patchSource } = await load();
    const source = readFileSync(file, 'utf8');
    const after = patchSource(file, source);
    expect(source).toMatch(new RegExp(`= require\\('${builtin}'\\)`));
    expect(after).not.toMatch(new RegExp(`= require\\('${builtin}'\\)`));
    expect(after).toContain(`=> require('${builtin}')`);
  });

  it('fails the build when the patched text has changed', async () => {
    const { patchSource } = await load();
    expect(() => patchSource(patched[0]?.file ?? '', '// nothing here')).toThrow(/no longer holds/);
  });
});
