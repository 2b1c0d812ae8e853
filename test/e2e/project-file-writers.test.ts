// Writers of .esign.json as they meet it, through the built binary: many `templates set` at once
// (each waits its turn under the file's lock, and none loses another's entry), a project file that
// is a symbolic link (the file it names is changed, the link stays), and `sudo esign templates set`
// (the user's file stays the user's, with its mode).
import { spawnSync } from 'node:child_process';
import {
  chmodSync,
  chownSync,
  lstatSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runBin } from '../helpers/spawn.js';

const ID = '01JD7X4ZQ8G1N6RVS0Y2MBKT3E';

function project(text = '{\n  "templates": {}\n}\n') {
  const dir = mkdtempSync(join(tmpdir(), 'esign-project-writers-'));
  const file = join(dir, '.esign.json');
  writeFileSync(file, text);
  return { dir, file };
}

const set = (cwd: string, name: string, env: Record<string, string> = {}) =>
  runBin(['templates', 'set', name, ID], { cwd, env, timeoutMs: 30_000 });

const names = (file: string) =>
  Object.keys(
    (JSON.parse(readFileSync(file, 'utf8')) as { templates: Record<string, string> }).templates,
  ).sort();

describe('writers of the project file', () => {
  it('12 templates set at once: every one is kept', async () => {
    const { dir, file } = project();
    const wanted = Array.from({ length: 12 }, (_, i) => `t${String(i).padStart(2, '0')}`);
    const results = await Promise.all(wanted.map((name) => set(dir, name)));
    for (const result of results) {
      expect(result.code, result.stderr).toBe(0);
      expect(result.stderr).toMatch(/^Added 't\d\d' in templates of /);
    }
    expect(names(file)).toEqual(wanted);
    expect(readdirSync(dir)).toEqual(['.esign.json']); // no lock or temporary file left
  }, 60_000);

  it('a project file that is a symbolic link: the file it names gets the entry, and the link stays', async () => {
    const { file: real } = project();
    const dir = mkdtempSync(join(tmpdir(), 'esign-project-link-'));
    const link = join(dir, '.esign.json');
    symlinkSync(real, link);
    const result = await set(dir, 'offer-letter');
    expect(result.code, result.stderr).toBe(0);
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    expect(readlinkSync(link)).toBe(real);
    expect(names(real)).toEqual(['offer-letter']);
  });

  it.runIf(process.platform === 'linux' && process.geteuid?.() === 0)(
    "sudo esign templates set keeps the user's file the user's, with its mode",
    async () => {
      const nobody = Number(spawnSync('id', ['-u', 'nobody'], { encoding: 'utf8' }).stdout.trim());
      const { dir, file } = project();
      chownSync(dir, nobody, nobody);
      chownSync(file, nobody, nobody);
      chmodSync(file, 0o640);
      const result = await set(dir, 'nda', { SUDO_UID: String(nobody), SUDO_USER: 'nobody' });
      expect(result.code, result.stderr).toBe(0);
      expect(names(file)).toEqual(['nda']);
      const after = statSync(file);
      expect(after.uid).toBe(nobody);
      expect(after.mode & 0o7777).toBe(0o640);
    },
  );
});
