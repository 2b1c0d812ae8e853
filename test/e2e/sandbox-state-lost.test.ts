// A sandbox stopped past its lease (Ctrl-Z, SIGSTOP) loses its --state to a second sandbox, as
// designed. When it continues it must not write into that state file (nor answer a create 200 that
// is never kept): it stops serving, says why on stderr and exits 9. Through the built binary.
//
// The lease (60 s) is not waited out: the test sets the lock's modification time back past it,
// which is all the second sandbox reads. The stopped sandbox's own clocks cannot be set back, so the
// test lets them pass the lock's confirmation window (LOCK_SURE_MS, 2 s) while it stands still, as a
// stop past the lease always does.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, utimesSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { LEASE_MS, LOCK_SURE_MS } from '../../src/fs/lock.js';
import { BIN, freshConfigDir, gather } from '../helpers/spawn.js';
import { waitFor } from '../helpers/wait-for.js';

const children: ChildProcess[] = [];
afterEach(() => {
  for (const child of children.splice(0)) {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGCONT');
      child.kill('SIGKILL');
    }
  }
});

interface Started {
  base_url: string;
  url: string;
  admin_secret: string;
  restored: boolean;
  organisations: { token: string | null; templates: { id: string }[] }[];
}

/** A sandbox on `state`, once it serves: its start-up JSON, its output as it comes, and its end. */
async function startSandbox(state: string) {
  const child = spawn(process.execPath, [BIN, 'sandbox', '--port', '0', '--state', state, '--json'], {
    env: { PATH: process.env.PATH ?? '', HOME: tmpdir(), ESIGN_CONFIG_DIR: freshConfigDir() },
    stdio: ['ignore', 'pipe', 'pipe'],
  }) as ChildProcess & { stdout: Readable; stderr: Readable };
  children.push(child);
  const { output, done } = gather(child, 60_000);
  await waitFor(() => output.stdout.includes('\n'), 'the sandbox to start', 20_000);
  return { child, output, done, info: JSON.parse(output.stdout) as Started };
}

async function create(sandbox: Started, email: string): Promise<number> {
  const org = sandbox.organisations.find((o) => o.token !== null && o.templates.length > 0);
  const response = await fetch(`${sandbox.base_url}/native/envelopes/create`, {
    method: 'POST',
    headers: { authorization: `Bearer ${org?.token}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      template_id: org?.templates[0]?.id,
      merge_data: { company: 'Acme Corp', role: 'Engineer' },
      signatory: { name: 'A', email },
    }),
  });
  await response.text();
  return response.status;
}

async function envelopeCount(sandbox: Started): Promise<number> {
  const response = await fetch(`${sandbox.url}/_sandbox/stats`, {
    headers: { authorization: `Bearer ${sandbox.admin_secret}` },
  });
  return ((await response.json()) as { envelopes: number }).envelopes;
}

describe('esign sandbox --state stopped past its lease while another sandbox takes the state', () => {
  it('continues only to stop: no create answered 200, a reason on stderr, exit 9; the state holds what was kept', async () => {
    const state = join(mkdtempSync(join(tmpdir(), 'esign-state-lost-')), 'sandbox.json');
    const first = await startSandbox(state);
    for (const email of ['a@example.com', 'b@example.com', 'c@example.com']) {
      expect(await create(first.info, email)).toBe(200);
    }

    first.child.kill('SIGSTOP');
    const stoppedAt = Date.now();
    const past = new Date(Date.now() - LEASE_MS - 5_000);
    utimesSync(`${state}.lock`, past, past);
    const second = await startSandbox(state);
    expect(second.info.restored).toBe(true);
    expect(await envelopeCount(second.info)).toBe(3);
    expect(await create(second.info, 'd@example.com')).toBe(200);

    // The stopped sandbox has stood still past its confirmation window (a stop past the lease
    // always has), then continues, and is asked for a create.
    await waitFor(() => Date.now() - stoppedAt > LOCK_SURE_MS + 100, 'the stop to last past the window');
    first.child.kill('SIGCONT');
    const answer = await create(first.info, 'e@example.com').catch(() => 'no answer');
    expect(answer).not.toBe(200);
    const stopped = await first.done;
    expect(stopped.code, stopped.stderr).toBe(9);
    expect(stopped.stderr).toContain(`Another sandbox took over the state file ${state}`);
    expect(stopped.stderr).toContain('state_lock_lost');

    // The second sandbox's state is whole: what both kept, and nothing the first said after.
    expect(await envelopeCount(second.info)).toBe(4);
    second.child.kill('SIGTERM');
    expect((await second.done).code).toBe(0);
    const third = await startSandbox(state);
    expect(await envelopeCount(third.info)).toBe(4);
    third.child.kill('SIGTERM');
    expect((await third.done).code).toBe(0);
  }, 90_000);
});
