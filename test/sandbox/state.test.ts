// --state: envelopes, tokens and revocations survive a restart; a crash image (the files as they
// are while the sandbox runs) restores every envelope that was answered 200; a corrupt file is
// reported with its path and left as it was.
import {
  copyFileSync,
  existsSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { CreateEnvelopeResponse } from '../../src/api/schemas.js';
import { StateFileError, startSandbox } from '../../src/commands/sandbox.js';
import { CliError } from '../../src/errors.js';
import type { RunningSandbox } from '../../src/sandbox/server.js';
import { DEFAULT_SEED, type Seed } from '../../src/sandbox/state/seed.js';
import { admin, postCreate, request, startQuietSandbox, tokenOf, validBody } from './helpers.js';

const folder = mkdtempSync(join(tmpdir(), 'esign-sandbox-state-'));
afterAll(() => rmSync(folder, { recursive: true, force: true }));
let counter = 0;
const newStatePath = () => join(folder, `state-${++counter}.json`);

async function createEnvelopes(
  sandbox: RunningSandbox,
  count: number,
  token = tokenOf(sandbox),
): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    const answer = await postCreate(sandbox, validBody({ merge_data: { company: `Company ${i}` } }), {
      token,
    });
    expect(answer.status).toBe(200);
    ids.push((answer.json as CreateEnvelopeResponse).data.envelope_id);
  }
  return ids;
}

/** Copies the files as they are right now: what a kill -9 at this moment would leave. */
function crashImage(statePath: string): string {
  const copy = newStatePath();
  copyFileSync(statePath, copy);
  if (existsSync(`${statePath}.journal`)) copyFileSync(`${statePath}.journal`, `${copy}.journal`);
  return copy;
}

async function startError(promise: Promise<unknown>): Promise<CliError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(CliError);
  return error as CliError;
}

describe('a state file', () => {
  it('keeps envelopes, new tokens and revocations across a restart, and never a token value', async () => {
    const statePath = newStatePath();
    const first = await startQuietSandbox({ statePath });
    expect(first.restored).toBe(false);
    const ids = await createEnvelopes(first, 3);
    const created = await admin(first, 'POST', 'tokens', { organisation: 'Acme Corp', name: 'rotated' });
    const rotated = (created.json as { token: string }).token;
    const oldToken = tokenOf(first, 0);
    expect((await admin(first, 'POST', 'tokens/revoke', { token: oldToken })).status).toBe(200);
    await first.close();

    expect(existsSync(`${statePath}.journal`)).toBe(false);
    expect(existsSync(`${statePath}.lock`)).toBe(false);
    expect(statSync(statePath).mode & 0o777).toBe(0o600);
    const text = readFileSync(statePath, 'utf8');
    expect(text).not.toContain(oldToken);
    expect(text).not.toContain(rotated);
    expect(text).not.toContain(tokenOf(first, 1));
    expect(text).toContain('"sha256"');

    const second = await startQuietSandbox({ statePath });
    try {
      expect(second.restored).toBe(true);
      expect(second.envelopeCount()).toBe(3);
      for (const id of ids) expect((await request(`${second.url}/sign/${id}`)).status).toBe(200);
      expect((await request(`${second.url}/sign/${ids[2]}`)).text).toContain('Company 2');
      expect((await postCreate(second, validBody(), { token: oldToken })).status).toBe(401);
      expect((await postCreate(second, validBody(), { token: rotated })).status).toBe(200);
      // The default Acme token is known but revoked; the rotated one is kept only as a hash.
      expect(second.organisations[0]?.token).toBeNull();
      expect(second.organisations[0]?.tokens).toEqual([
        { name: 'Sandbox token', token: oldToken, revoked: true },
        { name: 'rotated', token: null, revoked: false },
      ]);
      expect(second.organisations[1]?.token).toBe(tokenOf(first, 1));
    } finally {
      await second.close();
    }
  });

  it('has every envelope that was answered 200 in the files while the sandbox runs (a kill -9 image)', async () => {
    const statePath = newStatePath();
    const running = await startQuietSandbox({ statePath });
    try {
      const ids = await createEnvelopes(running, 5);
      await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          postCreate(running, validBody({ merge_data: { role: `r${i}` } })),
        ),
      );
      const image = crashImage(statePath);
      const restored = await startQuietSandbox({ statePath: image });
      try {
        expect(restored.envelopeCount()).toBe(25);
        for (const id of ids) expect((await request(`${restored.url}/sign/${id}`)).status).toBe(200);
      } finally {
        await restored.close();
      }
    } finally {
      await running.close();
    }
  });

  it('skips a journal entry cut short by a kill, with a note, and keeps the rest', async () => {
    const statePath = newStatePath();
    const running = await startQuietSandbox({ statePath });
    await createEnvelopes(running, 2);
    const image = crashImage(statePath);
    await running.close();
    writeFileSync(`${image}.journal`, '{"seq":99,"type":"envelope","envelope":{"id":"01J', { flag: 'a' });
    const notes: string[] = [];
    const restored = await startQuietSandbox({ statePath: image, log: (line) => notes.push(line) });
    try {
      expect(restored.envelopeCount()).toBe(2);
      expect(notes.join('\n')).toMatch(/skipped an incomplete last entry/);
    } finally {
      await restored.close();
    }
  });

  it('folds the journal into the snapshot when it grows, without losing anything', async () => {
    const statePath = newStatePath();
    const running = await startQuietSandbox({ statePath, compactAfterBytes: 1 });
    try {
      await createEnvelopes(running, 6);
      expect(readFileSync(`${statePath}.journal`, 'utf8').split('\n').length).toBeLessThanOrEqual(3);
      const image = crashImage(statePath);
      const restored = await startQuietSandbox({ statePath: image });
      expect(restored.envelopeCount()).toBe(6);
      await restored.close();
    } finally {
      await running.close();
    }
  });

  it('is reported with its path when it is corrupt, and left untouched', async () => {
    const cases: [string, string, RegExp][] = [
      [
        'cut short',
        '{"format":"esign-sandbox-state","version":1,"seq":3,',
        /is corrupt: invalid JSON at line 1, column \d+/,
      ],
      ['not JSON', 'hello', /is corrupt: invalid JSON/],
      ['another kind of JSON', '{"hello":"world"}', /is not a sandbox state file: format/],
    ];
    for (const [name, content, message] of cases) {
      const statePath = newStatePath();
      writeFileSync(statePath, content);
      const error = await startError(startSandbox({ port: 0, statePath }));
      expect(error, name).toBeInstanceOf(StateFileError);
      expect(error.exitCode).toBe(2);
      expect(error.message).toContain(statePath);
      expect(error.message).toMatch(message);
      expect(error.hint).toMatch(/left as it is/);
      expect(readFileSync(statePath, 'utf8')).toBe(content);
      expect(existsSync(`${statePath}.lock`)).toBe(false);
    }
  });

  it('reports a damaged journal line with its line number', async () => {
    const statePath = newStatePath();
    const running = await startQuietSandbox({ statePath });
    await createEnvelopes(running, 2);
    const image = crashImage(statePath);
    await running.close();
    const lines = readFileSync(`${image}.journal`, 'utf8').split('\n');
    lines[0] = '{"seq":1,"type":"envelope","envelope":{"id":"garbage"}}';
    writeFileSync(`${image}.journal`, lines.join('\n'));
    const error = await startError(startSandbox({ port: 0, statePath: image }));
    expect(error.message).toContain(`${image}.journal`);
    expect(error.message).toMatch(/corrupt at line 1: envelope\.id/);
  });

  it('refuses a --seed other than the one it was made from', async () => {
    const statePath = newStatePath();
    await (await startQuietSandbox({ statePath })).close();
    const other: Seed = {
      organisations: [
        { name: 'Solo Ltd', tokens: [{ name: 'main', token: 'solo-token-0123456789' }], templates: [] },
      ],
    };
    const error = await startError(startSandbox({ port: 0, statePath, seed: other }));
    expect(error.message).toMatch(/different seed/);
    // the same seed as before is fine
    await (await startSandbox({ port: 0, statePath, seed: DEFAULT_SEED })).close();
  });

  it('is used by one sandbox at a time; a lock left by a dead process is taken over', async () => {
    const statePath = newStatePath();
    const first = await startQuietSandbox({ statePath });
    const error = await startError(startSandbox({ port: 0, statePath }));
    expect(error.message).toMatch(new RegExp(`in use by another sandbox \\(process ${process.pid}\\)`));
    await first.close();

    writeFileSync(`${statePath}.lock`, `${2 ** 30}\n`);
    const second = await startQuietSandbox({ statePath });
    await second.close();
  });

  it('may start as an empty file (mktemp)', async () => {
    const statePath = newStatePath();
    writeFileSync(statePath, '');
    const sandbox = await startQuietSandbox({ statePath });
    expect(sandbox.restored).toBe(false);
    await sandbox.close();
    expect(readFileSync(statePath, 'utf8')).toMatch(/^\{\n {2}"format": "esign-sandbox-state"/);
  });

  it('needs its folder to exist', async () => {
    const error = await startError(
      startSandbox({ port: 0, statePath: join(folder, 'missing', 'state.json') }),
    );
    expect(error.message).toMatch(/folder of the state file does not exist/);
  });
});
