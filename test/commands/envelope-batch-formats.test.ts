// The results file and the journal as a resume reads them (through the schemas of
// src/batch/formats.ts): what a run wrote is read back; a line that does not match is refused with
// the file, the line and the key, before anything is sent.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  CreatedResult,
  FailedResult,
  type JournalHeader,
  parseJournalEntry,
  parseResult,
} from '../../src/batch/formats.js';
import { assertNoSecret, runCli } from '../helpers/context.js';
import { json, ok, useScriptedServer } from '../helpers/scripted-server.js';

const TOKEN = 'tok_formats_5e2c8a1f3b7d9e4a';
const TEMPLATE = '01JD7X4ZQ8G1N6RVS0Y2MBKT3E';

const server = useScriptedServer();

function setUp(records: number) {
  const dir = mkdtempSync(join(tmpdir(), 'esign-formats-'));
  const file = join(dir, 'people.jsonl');
  writeFileSync(
    file,
    Array.from({ length: records }, (_, i) =>
      JSON.stringify({ signatory: { name: `P ${i}`, email: `p${i}@example.com` } }),
    ).join('\n'),
  );
  return { file, output: join(dir, 'results.jsonl') };
}

async function batch(args: string[]) {
  const result = await runCli(['envelope', 'batch', ...args], {
    env: { ESIGN_TOKEN: TOKEN, ESIGN_BASE_URL: server.baseUrl },
  });
  assertNoSecret(result, TOKEN);
  return result;
}

describe('envelope batch: the results and journal formats', () => {
  it('every line a run writes matches the schemas: created, failed and unknown', async () => {
    const { file, output } = setUp(3);
    server.script(ok(), json(422, { message: 'no such template' }), { kind: 'destroy' });
    const first = await batch([
      file,
      '--template',
      TEMPLATE,
      '--output',
      output,
      '--concurrency',
      '1',
      '--max-retries',
      '0',
    ]);
    expect(first.code).toBe(8);
    for (const text of readFileSync(output, 'utf8').trim().split('\n')) {
      const value = JSON.parse(text) as { ok: boolean };
      expect(parseResult(text), text).toEqual({ ok: true, value });
      expect((value.ok ? CreatedResult : FailedResult).safeParse(value).success, text).toBe(true);
    }
    const states = readFileSync(output, 'utf8')
      .trim()
      .split('\n')
      .map((text) => JSON.parse(text) as { ok: boolean; error?: { code: string } });
    expect(states.map((state) => (state.ok ? 'created' : state.error?.code))).toContain('outcome_unknown');
  });

  it('a results line that does not match is refused on --resume, naming the file, line and key; nothing is sent', async () => {
    const { file, output } = setUp(3);
    server.fallback(ok());
    expect((await batch([file, '--template', TEMPLATE, '--output', output, '--concurrency', '1'])).code).toBe(
      0,
    );
    const lines = readFileSync(output, 'utf8').trim().split('\n');
    lines[1] = (lines[1] as string).replace(/"line":2/, '"line":"2"');
    writeFileSync(output, `${lines.join('\n')}\n`);
    server.requests.length = 0;
    const resumed = await batch([file, '--template', TEMPLATE, '--output', output, '--resume']);
    expect(resumed.code).toBe(2);
    expect(resumed.stderr).toContain(
      `--output ${output}: line 2 is not a result line of esign ("line" must be a whole number).`,
    );
    expect(resumed.stderr).toContain('Resume needs the results file of an earlier run, unchanged.');
    expect(server.requests).toHaveLength(0);
  });

  it('a journal line that is JSON but not an entry is refused on --resume with the file and line; nothing is sent', async () => {
    const { file, output } = setUp(2);
    writeFileSync(output, '');
    const header = JSON.stringify({ boot: 'linux:another-boot' } satisfies JournalHeader);
    writeFileSync(
      `${output}.pending`,
      `${header}\n{"line":1,"fingerprint":"f","offset":"0","reserved":true}\n`,
    );
    expect(parseJournalEntry(header)).toMatchObject({ ok: true });
    server.fallback(ok());
    const resumed = await batch([file, '--template', TEMPLATE, '--output', output, '--resume']);
    expect(resumed.code).toBe(2);
    expect(resumed.stderr).toContain(
      `${output}.pending: line 2 is not an entry of esign's batch journal ("offset" must be a whole number).`,
    );
    expect(server.requests).toHaveLength(0);
  });
});
