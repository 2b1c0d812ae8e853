// Writing the project file: one template entry changed in place (every other byte kept: byte-order
// mark, CRLF, tabs, key order), the atomic write (permissions kept, no replacing with exclusive), and a
// change under the file's lock (through links to a file not made yet; nothing written when nothing changes).
import {
  chmodSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseProjectFile } from '../../src/project/project-file.js';
import {
  changeFileLocked,
  REMOVE_FILE,
  updatedEntry,
  withTemplateEntry,
  writeFileAtomic,
} from '../../src/project/write-project.js';

const OFFER = '01JD7X4ZQ8G1N6RVS0Y2MBKT3E';
const NDA = '01JD7X5B3M9T8W2HQ4K6N0PRSA';

describe('withTemplateEntry', () => {
  it('keeps a byte-order mark, CRLF line ends, tab indentation and the other keys as they were', () => {
    const text = `\ufeff{\r\n\t"profile": "sandbox",\r\n\t"templates": {\r\n\t\t"nda": "${NDA}"\r\n\t},\r\n\t"defaults": {"rate": "10/s"}\r\n}\r\n`;
    const after = withTemplateEntry(text, 'nda', { id: NDA, fields: { counterparty: { required: true } } });
    expect(after).toBe(
      `\ufeff{\r\n\t"profile": "sandbox",\r\n\t"templates": {\r\n\t\t"nda": {\r\n\t\t\t"id": "${NDA}",\r\n\t\t\t"fields": {\r\n\t\t\t\t"counterparty": {\r\n\t\t\t\t\t"required": true\r\n\t\t\t\t}\r\n\t\t\t}\r\n\t\t}\r\n\t},\r\n\t"defaults": {"rate": "10/s"}\r\n}\r\n`,
    );
    expect(parseProjectFile(after, 'p').templates?.nda).toEqual({
      id: NDA,
      fields: { counterparty: { required: true } },
    });
  });

  it('adds a profile section when there is none, and a trailing newline to a file without one', () => {
    const after = withTemplateEntry(`{"templates": {"nda": "${NDA}"}}`, 'offer', OFFER, 'production');
    expect(after.endsWith('\n')).toBe(true);
    expect(JSON.parse(after)).toEqual({
      templates: { nda: NDA },
      profiles: { production: { templates: { offer: OFFER } } },
    });
  });
});

describe('updatedEntry', () => {
  it('a plain id stays plain without field changes; fields are kept when only the id changes', () => {
    expect(updatedEntry(NDA, OFFER, (f) => f, false)).toBe(OFFER);
    expect(updatedEntry({ id: NDA, fields: { a: {} } }, OFFER, (f) => f, false)).toEqual({
      id: OFFER,
      fields: { a: {} },
    });
    expect(
      updatedEntry({ id: NDA, fields: { a: {} } }, NDA, (f) => ({ ...f, b: { required: true } }), true),
    ).toEqual({ id: NDA, fields: { a: {}, b: { required: true } } });
  });
});

describe('writeFileAtomic', () => {
  it('replaces a file keeping its permissions, leaves no temporary file, and never replaces one when exclusive', () => {
    const dir = mkdtempSync(join(tmpdir(), 'esign-write-'));
    const path = join(dir, '.esign.json');
    writeFileSync(path, '{}\n');
    chmodSync(path, 0o640);
    writeFileAtomic(path, '{"templates": {}}\n');
    expect(readFileSync(path, 'utf8')).toBe('{"templates": {}}\n');
    expect(statSync(path).mode & 0o777).toBe(0o640);
    expect(() => writeFileAtomic(path, 'other\n', true)).toThrow(expect.objectContaining({ code: 'EEXIST' }));
    expect(readFileSync(path, 'utf8')).toBe('{"templates": {}}\n');
    expect(readdirSync(dir)).toEqual(['.esign.json']);
  });
});

describe('changeFileLocked', () => {
  it('follows a chain of links (one relative, with ..) to a file not made yet, making its folders; the links stay', async () => {
    const root = realpathSync(mkdtempSync(join(tmpdir(), 'esign-change-locked-')));
    mkdirSync(join(root, 'home', 'config'), { recursive: true });
    const linked = join(root, 'a', 'b', 'linked');
    mkdirSync(linked, { recursive: true });
    // home/config/app.json -> ../../dotfiles-link/app.json (relative), dotfiles-link -> a/b/linked,
    // whose app.json -> ../store/deep/app.json: from a/b (where the system reads it), not from root.
    symlinkSync(linked, join(root, 'dotfiles-link'));
    symlinkSync('../store/deep/app.json', join(linked, 'app.json'));
    const path = join(root, 'home', 'config', 'app.json');
    symlinkSync('../../dotfiles-link/app.json', path);
    const changed = await changeFileLocked(path, (text, exists) => `${text}${exists}\n`, {
      makeFolders: true,
    });
    expect(changed).toBe(true);
    const store = join(root, 'a', 'b', 'store', 'deep');
    expect(readFileSync(join(store, 'app.json'), 'utf8')).toBe('false\n');
    expect(readFileSync(path, 'utf8')).toBe('false\n'); // what the links lead to
    expect(lstatSync(path).isSymbolicLink()).toBe(true);
    expect(lstatSync(join(linked, 'app.json')).isSymbolicLink()).toBe(true);
    expect(readdirSync(store)).toEqual(['app.json']); // no lock left
  });

  it('the same text writes nothing (the file is not replaced); REMOVE_FILE removes it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'esign-change-locked-'));
    const path = join(dir, 'app.json');
    writeFileSync(path, '{}\n');
    const inode = statSync(path).ino;
    expect(await changeFileLocked(path, (text) => text)).toBe(false);
    expect(statSync(path).ino).toBe(inode);
    expect(await changeFileLocked(path, () => REMOVE_FILE)).toBe(true);
    expect(existsSync(path)).toBe(false);
    expect(readdirSync(dir)).toEqual([]);
  });
});
