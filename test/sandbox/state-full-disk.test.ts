// --state on a nearly full disk (issue 10): a journal write the kernel takes only in part (a short
// write) must be finished or fail the request with 500; never a 200 for an envelope that a restart
// then loses. On a real tmpfs of 64 KiB (test/helpers/full-disk.ts).
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { CreateEnvelopeResponse } from '../../src/api/schemas.js';
import { startSandbox } from '../../src/commands/sandbox.js';
import { fillDisk, useSmallDisk } from '../helpers/full-disk.js';
import { postCreate, request, validBody } from './helpers.js';

const disk = useSmallDisk('esign-sandbox-full-');
const folder = disk.folder;

describe('--state on a nearly full disk', () => {
  it('answers 500, never 200, when the journal cannot take a whole entry; every 200 survives a restart', async (context) => {
    if (!disk.present(context)) return;
    const statePath = join(folder, 'state.json');
    const filler = join(folder, 'filler');
    const sandbox = await startSandbox({ port: 0, statePath, keepRequests: 0 });
    const acknowledged: string[] = [];
    const statuses: number[] = [];
    try {
      const first = await postCreate(sandbox, validBody());
      expect(first.status).toBe(200);
      acknowledged.push((first.json as CreateEnvelopeResponse).data.envelope_id);
      fillDisk(filler); // the journal's page has room left; the next page cannot be had
      for (let i = 0; i < 100 && !statuses.includes(500); i++) {
        const answer = await postCreate(
          sandbox,
          validBody({ merge_data: { company: `Company ${i} ${'x'.repeat(100)}` } }),
        );
        statuses.push(answer.status);
        if (answer.status === 200)
          acknowledged.push((answer.json as CreateEnvelopeResponse).data.envelope_id);
      }
      expect(statuses).toContain(500);
      expect(new Set(statuses)).toEqual(new Set([200, 500]));
    } finally {
      await sandbox.close().catch(() => {}); // the state cannot be saved: the disk is full
    }

    rmSync(filler);
    const notes: string[] = [];
    const restarted = await startSandbox({ port: 0, statePath, log: (line) => notes.push(line) });
    try {
      expect(restarted.restored).toBe(true);
      const lost: string[] = [];
      for (const id of acknowledged)
        if ((await request(`${restarted.url}/sign/${id}`)).status !== 200) lost.push(id);
      expect(lost).toEqual([]);
      expect(notes.filter((line) => /incomplete last entry/.test(line))).toEqual([]); // a failed write leaves no half line
    } finally {
      await restarted.close();
    }
  });
});
