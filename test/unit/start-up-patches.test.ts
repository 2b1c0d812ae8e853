// The build's patches of commander, undici and jsonc-parser (scripts/start-up-patches.mjs), checked against the
// installed copies: an upgrade that changes a patched text fails here by name, before the build does.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';

const require = createRequire(import.meta.url);
const PLUGIN = resolve(import.meta.dirname, '../../scripts/start-up-patches.mjs');

interface Patches {
  patchSource(path: string, source: string): string;
  llhttpWasmFiles(): { name: string; bytes: Buffer }[];
}
const load = async () => (await import(pathToFileURL(PLUGIN).href)) as Patches;

const undici = (path: string) => require.resolve(`undici/lib/${path}`);
const patched = [
  {
    file: join(
      dirname(require.resolve('jsonc-parser/package.json')),
      'lib',
      'esm',
      'impl',
      'string-intern.js',
    ),
    gone: ['export const cachedBreakLinesWithSpaces = {'],
  },
  {
    file: join(dirname(require.resolve('commander')), 'lib', 'command.js'),
    gone: ["const childProcess = require('node:child_process')"],
  },
  {
    file: undici('dispatcher/client.js'),
    gone: ["const http = require('node:http')", "require('./client-h2.js')"],
  },
  {
    file: undici('dispatcher/client-h1.js'),
    gone: ["require('../web/fetch/body.js')", "require('node:assert')"],
  },
  {
    file: undici('core/util.js'),
    gone: ["const { IncomingMessage } = require('node:http')", "require('node:assert')"],
  },
];

describe('start-up patches', () => {
  it.each(patched)('$file: what it no longer loads at start', async ({ file, gone }) => {
    const { patchSource } = await load();
    const source = readFileSync(file, 'utf8');
    const after = patchSource(file, source);
    for (const text of gone) {
      expect(source, text).toContain(text);
      expect(after, text).not.toContain(text);
    }
  });

  it('fails the build when a patched text has changed', async () => {
    const { patchSource } = await load();
    expect(() => patchSource(patched[1]?.file ?? '', '// nothing here')).toThrow(/no longer holds/);
  });

  it("gives undici's assert calls the check node:assert makes", async () => {
    const { patchSource } = await load();
    const source = patchSource(undici('core/util.js'), readFileSync(undici('core/util.js'), 'utf8'));
    expect(source).toContain("require('esign:assert')");
    // undici calls assert(value) and assert(value, message) only: never a method of node:assert.
    for (const file of ['core/util.js', 'core/request.js', 'dispatcher/client.js', 'dispatcher/client-h1.js'])
      expect(readFileSync(undici(file), 'utf8')).not.toMatch(/\bassert\.[a-zA-Z]/);
  });

  it("writes llhttp's WebAssembly as the bytes undici's base64 modules hold", async () => {
    const { llhttpWasmFiles } = await load();
    const files = llhttpWasmFiles();
    expect(files.map((f) => f.name).sort()).toEqual(['llhttp.wasm', 'llhttp_simd.wasm']);
    for (const { bytes } of files) {
      expect(bytes.subarray(0, 4)).toEqual(Buffer.from([0x00, 0x61, 0x73, 0x6d])); // \0asm
      expect(WebAssembly.validate(new Uint8Array(bytes))).toBe(true);
    }
    const built = readFileSync(resolve(import.meta.dirname, '../../dist/llhttp/llhttp_simd.wasm'));
    expect(built.equals(require('undici/lib/llhttp/llhttp_simd-wasm.js'))).toBe(true);
  });
});
