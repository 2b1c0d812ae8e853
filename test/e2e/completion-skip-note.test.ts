// On a machine without tmux and the shells, the real-shell completion tests are skipped, and the
// test output says why and how to run them (instead of a silent "skipped").
import { spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';

it('says once why the real-shell completion tests are skipped, and how to run them', () => {
  // A PATH with nothing on it: no tmux, no bash, no zsh, no fish.
  const emptyPath = mkdtempSync(join(tmpdir(), 'esign-no-shells-'));
  const vitest = spawnSync(
    process.execPath,
    ['node_modules/vitest/vitest.mjs', 'run', 'test/e2e/completion-shells.test.ts', '--reporter=default'],
    { encoding: 'utf8', env: { ...process.env, PATH: emptyPath, CI: 'true', NO_COLOR: '1' } },
  );
  const output = vitest.stdout + vitest.stderr;
  expect(vitest.status, output).toBe(0);
  // Every test of the file is skipped (N of N), however many the file has.
  expect(output).toMatch(/Tests\s+(\d+) skipped \(\1\)/);
  const notes = output.match(/Tab completion in the real shells is not tested here/g) ?? [];
  expect(notes).toHaveLength(1);
  expect(output).toMatch(/: tmux, bash, (bash-completion, )?zsh, fish not installed/);
  expect(output).toContain('apt-get install tmux bash-completion zsh fish');
  expect(output).toContain('npx vitest run test/e2e/completion-shells.test.ts');
});
