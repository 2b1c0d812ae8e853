// esign templates set --in-profile: the profile is a name `--profile` could use, checked before the
// file is touched (a name no profile can have would be written under profiles and never read).
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/context.js';

const NDA = '01JD7X5B3M9T8W2HQ4K6N0PRSA';

describe('esign templates set --in-profile', () => {
  it('refuses a profile name that breaks the rule (exit 2), escaped, the file unchanged', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'esign-set-profile-'));
    const original = `{"templates": {"nda": "${NDA}"}}\n`;
    writeFileSync(join(cwd, '.esign.json'), original);
    for (const profile of ['a b', '\u001b[31mred']) {
      const result = await runCli(['templates', 'set', 'nda', NDA, '--in-profile', profile], { cwd });
      expect(result.code).toBe(2);
      expect(result.stderr).toContain('is not a valid profile name');
      expect(result.stderr).not.toContain('\u001b');
    }
    expect(readFileSync(join(cwd, '.esign.json'), 'utf8')).toBe(original);
    const good = await runCli(['templates', 'set', 'nda', NDA, '--in-profile', 'staging.eu-1'], { cwd });
    expect(good.code).toBe(0);
    expect(JSON.parse(readFileSync(join(cwd, '.esign.json'), 'utf8')).profiles).toEqual({
      'staging.eu-1': { templates: { nda: NDA } },
    });
  });
});
