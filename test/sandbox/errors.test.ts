// The sandbox speaks HTTP, not CLI: on its own it throws SandboxErrors by kind, in its own words (no
// flag, no exit code), and keeps its state file with the lock and folder sync it is given.
// commands/sandbox.ts words each kind for esign's users (the flag to change) and maps it to exit 2.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cliErrorOf, ESIGN_FILE_SYSTEM } from '../../src/commands/sandbox.js';
import { CliError, ExitCode } from '../../src/errors.js';
import { SandboxError, type SandboxErrorKind } from '../../src/sandbox/sandbox-error.js';
import { startSandbox } from '../../src/sandbox/server.js';
import type { StateFileSystem } from '../../src/sandbox/state/file-system.js';
import { loadSeedFile } from '../../src/sandbox/state/seed.js';

const folder = mkdtempSync(join(tmpdir(), 'esign-sandbox-errors-'));
afterAll(() => rmSync(folder, { recursive: true, force: true }));
let counter = 0;
const newStatePath = () => join(folder, `state-${++counter}.json`);

const esignFileSystem: StateFileSystem = ESIGN_FILE_SYSTEM;
/** A flag, as the CLI would name it: the sandbox's own words never have one. */
const FLAG = /--[a-z]/;

async function sandboxError(promise: Promise<unknown>): Promise<SandboxError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(SandboxError);
  expect(error).not.toBeInstanceOf(CliError);
  expect(error).not.toHaveProperty('exitCode');
  return error as SandboxError;
}

describe('the sandbox on its own', () => {
  it('reports a corrupt state file as state_corrupt, in its own words, and leaves it', async () => {
    const statePath = newStatePath();
    writeFileSync(statePath, 'hello');
    const error = await sandboxError(startSandbox({ port: 0, statePath, fileSystem: esignFileSystem }));
    expect(error.kind).toBe('state_corrupt');
    expect(error.message).toContain(statePath);
    expect(error.hint).toMatch(/left as it is/);
    expect(`${error.message} ${error.hint}`).not.toMatch(FLAG);
  });

  it('names no flag for a busy port, a missing folder, an unreadable seed or another seed', async () => {
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const port = (blocker.address() as { port: number }).port;
    try {
      const busy = await sandboxError(startSandbox({ port }));
      expect(busy.kind).toBe('port_in_use');
      expect(busy.message).toBe(`Port ${port} on 127.0.0.1 is already in use.`);
      expect(busy.hint).not.toMatch(FLAG);
    } finally {
      blocker.close();
    }

    const missingFolder = join(folder, 'missing', 'state.json');
    const noFolder = await sandboxError(
      startSandbox({ port: 0, statePath: missingFolder, fileSystem: esignFileSystem }),
    );
    expect(noFolder.kind).toBe('state_folder_missing');
    expect(noFolder.hint).not.toMatch(FLAG);

    const missingSeed = join(folder, 'nope.json');
    const unreadable = await sandboxError(loadSeedFile(missingSeed));
    expect(unreadable.kind).toBe('seed_unreadable');
    expect(unreadable.file).toBe(missingSeed);
    expect((unreadable.cause as NodeJS.ErrnoException).code).toBe('ENOENT');
    expect(unreadable.hint).not.toMatch(FLAG);

    const statePath = newStatePath();
    await (await startSandbox({ port: 0, statePath, fileSystem: esignFileSystem })).close();
    const seed = {
      organisations: [
        { name: 'Solo Ltd', tokens: [{ name: 'main', token: 'solo-token-0123456789' }], templates: [] },
      ],
    };
    const otherSeed = await sandboxError(
      startSandbox({ port: 0, statePath, seed, fileSystem: esignFileSystem }),
    );
    expect(otherSeed.kind).toBe('state_seed_mismatch');
    expect(otherSeed.file).toBe(statePath);
    expect(`${otherSeed.message} ${otherSeed.hint}`).not.toMatch(FLAG);
  });

  it('keeps its state file with the lock and folder sync it is given', async () => {
    const calls: string[] = [];
    const recording: StateFileSystem = {
      acquireLock: (lockPath, errors) => {
        calls.push(`acquire ${lockPath}`);
        return esignFileSystem.acquireLock(lockPath, errors);
      },
      releaseLock: (lockPath) => {
        calls.push(`release ${lockPath}`);
        return esignFileSystem.releaseLock(lockPath);
      },
      syncFolder: (syncedFolder) => {
        calls.push(`sync ${syncedFolder}`);
        esignFileSystem.syncFolder(syncedFolder);
      },
      openFile: (path, how) => esignFileSystem.openFile(path, how),
      lockHeld: (lockPath) => esignFileSystem.lockHeld(lockPath),
      lockLost: (lockPath) => esignFileSystem.lockLost(lockPath),
    };
    const statePath = newStatePath();
    const sandbox = await startSandbox({ port: 0, statePath, fileSystem: recording });
    await sandbox.close();
    expect(calls[0]).toBe(`acquire ${statePath}.lock`);
    expect(calls).toContain(`sync ${dirname(statePath)}`);
    expect(calls.at(-1)).toBe(`release ${statePath}.lock`);

    const held: StateFileSystem = {
      ...esignFileSystem,
      acquireLock: (_, errors) => Promise.reject(errors.busy(4242)),
    };
    const busy = await sandboxError(startSandbox({ port: 0, statePath, fileSystem: held }));
    expect(busy.kind).toBe('state_in_use');
    expect(busy.message).toBe(`The state file ${statePath} is in use by another sandbox (process 4242).`);
    expect(busy.file).toBe(`${statePath}.lock`);
    expect(busy.hint).not.toMatch(FLAG);
  });

  it('refuses a state file without a lock and folder sync to keep it with', async () => {
    const error = await sandboxError(startSandbox({ port: 0, statePath: newStatePath() }));
    expect(error.kind).toBe('bad_option');
    expect(error.message).toMatch(/statePath needs fileSystem/);
  });
});

describe("esign's words for the sandbox's errors (commands/sandbox.ts)", () => {
  // Every kind, so a new kind without a row fails to compile: the code of --json errors, and the
  // flag that the message or hint names.
  const table: Record<SandboxErrorKind, [code: string, flag: RegExp | null, exit?: number]> = {
    bad_option: ['usage', null],
    port_in_use: ['usage', /--port 0/],
    port_forbidden: ['usage', /--port/],
    no_such_address: ['usage', /--host example\.invalid/],
    seed_unreadable: ['invalid_input', /--seed/],
    bad_seed: ['invalid_input', null],
    state_corrupt: ['state_file', /--state/],
    state_seed_mismatch: ['state_file', /--seed/],
    state_in_use: ['state_file', /--state/],
    state_folder_missing: ['state_file', /--state/],
    state_lock_failed: ['state_file', /--state/],
    state_io: ['state_file', null],
    // Not bad input: the state could no longer be written (another sandbox took it over).
    state_lock_lost: ['state_lock_lost', /--state \/tmp\/the-file/, ExitCode.outputFailed],
  };
  it.each(Object.entries(table))('%s is exit 2 (or as noted) with code %j', (kind, [code, flag, exit]) => {
    const cause = Object.assign(new Error('ENOENT: no such file or directory'), { code: 'ENOENT' });
    const error = cliErrorOf(
      new SandboxError(kind as SandboxErrorKind, 'It went wrong.', {
        hint: 'Do this.',
        details: ['one problem'],
        file: '/tmp/the-file',
        host: 'example.invalid',
        cause,
      }),
    ) as CliError;
    expect(error).toBeInstanceOf(CliError);
    expect(error.exitCode).toBe(exit ?? ExitCode.usage);
    expect(error.code).toBe(code);
    if (flag) expect(`${error.message} ${error.hint}`).toMatch(flag);
  });

  it('keeps what the sandbox said where no flag is to be named', () => {
    const error = cliErrorOf(
      new SandboxError('bad_seed', 'The seed file s.json is not valid.', {
        hint: 'See docs/sandbox.md for the seed file format.',
        details: ['organisations: is required'],
      }),
    ) as CliError;
    expect(error.message).toBe('The seed file s.json is not valid.');
    expect(error.hint).toBe('See docs/sandbox.md for the seed file format.');
    expect(error.details).toEqual(['organisations: is required']);
  });

  it('says why a seed file cannot be read in plain words', () => {
    const cause = Object.assign(new Error('EACCES: permission denied'), { code: 'EACCES' });
    const error = cliErrorOf(
      new SandboxError('seed_unreadable', 'Cannot read the seed file s.json (EACCES).', {
        file: 's.json',
        cause,
      }),
    ) as CliError;
    expect(error.message).toBe('Cannot read the seed file s.json (permission denied).');
    expect(error.hint).toBe('Check the --seed path.');
  });

  it('leaves any other error as it is', () => {
    const other = new Error('boom');
    expect(cliErrorOf(other)).toBe(other);
  });
});
