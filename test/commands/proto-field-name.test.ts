// A field named `__proto__` in a template's fields: zod's records skip that key (and a plain object
// takes it for its prototype), so it vanished without a word and a required `__proto__` was never
// checked. The project file reports it as a bad field name, and `templates set` refuses it.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/context.js';

const NDA = '01JD7X5B3M9T8W2HQ4K6N0PRSA';

function repository(text: string): { cwd: string; file: string } {
  const cwd = mkdtempSync(join(tmpdir(), 'esign-proto-field-'));
  writeFileSync(join(cwd, '.esign.json'), text);
  return { cwd, file: join(cwd, '.esign.json') };
}

describe('a field named __proto__', () => {
  it('in the project file is told as a bad field name (top level and per profile), exit 2', async () => {
    const { cwd, file } = repository(
      `{"templates": {"nda": {"id": "${NDA}", "fields": {"__proto__": {"required": true}}}},\n` +
        ` "profiles": {"p": {"templates": {"nda": {"id": "${NDA}", "fields": {"ok": {}, "__proto__": {}}}}}}}\n`,
    );
    const result = await runCli(['templates'], { cwd });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(
      `error: ${file}:1:71: 'templates.nda.fields.__proto__' is not a field name esign can keep: '__proto__' is the name of every JavaScript object's prototype`,
    );
    expect(result.stderr).toContain(`${file}:2:100: 'profiles.p.templates.nda.fields.__proto__'`);
    expect(result.stderr).toContain("'profiles.p.templates.nda.fields.__proto__' is not a field name");
  });

  it('templates set refuses it from every field flag, exit 2, the file unchanged', async () => {
    const original = `{"templates": {"nda": "${NDA}"}}\n`;
    const { cwd, file } = repository(original);
    for (const flags of [
      ['--field', '__proto__'],
      ['--required', '__proto__'],
      ['--description', '__proto__=x'],
      ['--example', '__proto__=x'],
      ['--remove-field', '__proto__'],
    ]) {
      const result = await runCli(['templates', 'set', 'nda', ...flags], { cwd });
      expect(result.code).toBe(2);
      expect(result.stderr).toContain(`${flags[0]} '__proto__' is not a field name esign can keep`);
      expect(result.stderr).not.toContain('Updated');
      expect(readFileSync(file, 'utf8')).toBe(original);
    }
  });
});
