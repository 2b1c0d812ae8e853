// --output in a folder that others can write, as an attacker would prepare it: another user (here
// `nobody`) plants a results file anyone can write and a symbolic link where the journal goes, in a
// world-writable sticky folder, before the run. The batch writes signing URLs (bearer links) only to
// files of the user's own: it refuses, sends nothing and leaves the planted files as they were. The
// kernel's protected_regular and protected_symlinks, off in many containers (and on this machine's
// CI), are not relied on.
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, lstatSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { useScriptedServer } from '../helpers/scripted-server.js';
import { freshConfigDir, runBin } from '../helpers/spawn.js';

const TOKEN = 'tok_shared_files_5a7c9e1b3d';
const TEMPLATE = '01JD7X4ZQ8G1N6RVS0Y2MBKT3E';

/** Root, with a `nobody` to play the other user: what the test needs. */
const asRootWithNobody =
  process.platform === 'linux' &&
  process.geteuid?.() === 0 &&
  spawnSync('runuser', ['-u', 'nobody', '--', 'true']).status === 0;

const server = useScriptedServer();

/** Runs a shell command as `nobody`. */
function asNobody(script: string): void {
  const result = spawnSync('runuser', ['-u', 'nobody', '--', 'sh', '-c', script], { encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`as nobody: ${script}: ${result.stderr}`);
}

/** Folders another user can reach: in the system's /tmp, not the test run's private folder. */
const made: string[] = [];
afterAll(() => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

/** A world-writable sticky folder, as /tmp is, with the records to send (the user's own). */
function sharedFolder() {
  const dir = mkdtempSync('/tmp/esign-sticky-');
  chmodSync(dir, 0o1777);
  // Where nobody would like the journal to go: a folder of theirs.
  const theirs = mkdtempSync('/tmp/esign-nobody-');
  chmodSync(theirs, 0o777);
  made.push(dir, theirs);
  const input = join(mkdtempSync(join(tmpdir(), 'esign-input-')), 'people.jsonl');
  writeFileSync(input, `${JSON.stringify({ signatory: { name: 'Ada', email: 'ada@example.com' } })}\n`);
  return { dir, input, output: join(dir, 'results.jsonl'), trap: join(theirs, 'collected') };
}

const batch = (input: string, output: string, ...more: string[]) =>
  runBin(['envelope', 'batch', input, '--template', TEMPLATE, '--output', output, ...more], {
    env: { ESIGN_CONFIG_DIR: freshConfigDir(), ESIGN_BASE_URL: server.baseUrl, ESIGN_TOKEN: TOKEN },
  });

describe.runIf(asRootWithNobody)('--output in a folder others can write', () => {
  it("another user's results file, writable by all, and a journal link to their file: refused, nothing sent, their files untouched", async () => {
    const files = sharedFolder();
    asNobody(
      `umask 000; : > '${files.output}' && chmod 666 '${files.output}' && ln -s '${files.trap}' '${files.output}.pending'`,
    );
    for (const more of [[], ['--dry-run']]) {
      const result = await batch(files.input, files.output, ...more);
      expect(result.code, result.stderr).toBe(2);
      expect(result.stderr).toContain(`--output ${files.output} is owned by another user (uid 65534)`);
      expect(result.stderr).toContain('esign writes signing URLs only to a file of your own');
    }
    expect(server.requests).toHaveLength(0);
    expect(readFileSync(files.output, 'utf8')).toBe('');
    expect(existsSync(files.trap)).toBe(false);
  });

  it('a journal that is a symbolic link (the results file not there yet): refused before anything is sent', async () => {
    const files = sharedFolder();
    asNobody(`ln -s '${files.trap}' '${files.output}.pending'`);
    const result = await batch(files.input, files.output);
    expect(result.code, result.stderr).toBe(2);
    expect(result.stderr).toContain(`(${files.output}.pending) is a symbolic link`);
    expect(server.requests).toHaveLength(0);
    expect(existsSync(files.trap)).toBe(false);
    expect(existsSync(files.output)).toBe(false);
  });

  it("--output named through another user's symbolic link: refused", async () => {
    const files = sharedFolder();
    asNobody(`: > '${files.trap}' && chmod 666 '${files.trap}' && ln -s '${files.trap}' '${files.output}'`);
    const result = await batch(files.input, files.output);
    expect(result.code, result.stderr).toBe(2);
    expect(result.stderr).toContain(
      `--output ${files.output} is a symbolic link made by another user (uid 65534)`,
    );
    expect(server.requests).toHaveLength(0);
    expect(readFileSync(files.trap, 'utf8')).toBe('');
  });

  it("a results file of the user's own that the group can write: refused, naming its mode", async () => {
    const files = sharedFolder();
    writeFileSync(files.output, '');
    chmodSync(files.output, 0o664);
    const result = await batch(files.input, files.output, '--resume');
    expect(result.code, result.stderr).toBe(2);
    expect(result.stderr).toContain(`--output ${files.output} can be written by other users (mode 0664)`);
    expect(server.requests).toHaveLength(0);
    expect(lstatSync(files.output).size).toBe(0);
  });
});
