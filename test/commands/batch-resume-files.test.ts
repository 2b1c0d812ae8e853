// What a resume reads back from the files an earlier run left (issue 21): only a last line can be
// torn, a whole last line without its newline is a result like any other, and --dry-run refuses
// what the run would refuse. Counted at the server: no record is sent twice.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { currentBoot } from '../../src/batch/journal.js';
import { assertNoSecret, runCli } from '../helpers/context.js';
import { ok, type Reply, useScriptedServer } from '../helpers/scripted-server.js';

const TOKEN = 'tok_batch_2e4c6a8b0d1f3e5a';
const TEMPLATE = '01JD7X4ZQ8G1N6RVS0Y2MBKT3E';

const server = useScriptedServer();

function createEverything() {
  server.fallback((_request, index): Reply => {
    const id = `01JD7X4ZQ8G1N6RVS0Y2M${String(index).padStart(5, '0')}`;
    return ok({ envelope_id: id, signing_url: `https://sign.example.com/s/${id}` });
  });
}

async function batch(args: string[]) {
  const result = await runCli(['envelope', 'batch', ...args, '--template', TEMPLATE], {
    env: { ESIGN_TOKEN: TOKEN, ESIGN_BASE_URL: server.baseUrl },
  });
  assertNoSecret(result, TOKEN);
  return result;
}

const jsonl = (records: unknown[]) => `${records.map((r) => JSON.stringify(r)).join('\n')}\n`;
const people = (numbers: number[]) =>
  jsonl(numbers.map((n) => ({ signatory: { name: `Person ${n}`, email: `p${n}@example.com` } })));
const sentTo = () => server.requests.map((request) => JSON.parse(request.body).signatory.email);

/** A folder with the input of people `numbers`, and the results of a finished run over them. */
async function finishedRun(numbers: number[]) {
  const dir = mkdtempSync(join(tmpdir(), 'esign-resume-files-'));
  const input = join(dir, 'people.jsonl');
  const output = join(dir, 'results.jsonl');
  writeFileSync(input, people(numbers));
  createEverything();
  const first = await batch([input, '--output', output]);
  expect(first.code).toBe(0);
  server.requests.length = 0;
  return { dir, input, output };
}

describe('a resume reads the results file: only its last line can be torn', () => {
  it('keeps a whole last result line that lacks its newline, and sends its record no second time', async () => {
    const { input, output } = await finishedRun([1, 2, 3]);
    const written = readFileSync(output, 'utf8');
    writeFileSync(output, written.slice(0, -1)); // an editor or a tool dropped the final newline
    writeFileSync(input, people([1, 2, 3, 4]));

    const dry = await batch([input, '--output', output, '--resume', '--dry-run']);
    expect(dry.code).toBe(0);
    expect(dry.stderr).toContain('1 would be sent, 3 skipped');
    expect(readFileSync(output, 'utf8')).toBe(written.slice(0, -1)); // a dry run changes no file

    const resumed = await batch([input, '--output', output, '--resume']);
    expect(resumed.code).toBe(0);
    expect(sentTo()).toEqual(['p4@example.com']);
    const lines = readFileSync(output, 'utf8').split('\n');
    expect(lines.slice(0, 3).join('\n')).toBe(written.slice(0, -1)); // line 3 kept, a newline added
    expect(lines.filter(Boolean).map((line) => JSON.parse(line).line)).toEqual([1, 2, 3, 4]);
  });

  it('cuts off a torn last line (not JSON) and reads the rest', async () => {
    const { input, output } = await finishedRun([1, 2]);
    const written = readFileSync(output, 'utf8');
    writeFileSync(output, `${written}{"line":3,"ok":tr`);
    const resumed = await batch([input, '--output', output, '--resume']);
    expect(resumed.code).toBe(0);
    expect(server.requests).toHaveLength(0);
    expect(readFileSync(output, 'utf8')).toBe(written);
  });

  it('reports a line that is not JSON before other lines, with its number; nothing is sent', async () => {
    const { input, output } = await finishedRun([1, 2, 3]);
    const [first, , third] = readFileSync(output, 'utf8').split('\n');
    writeFileSync(output, `${first}\n{"line":2,"ok":tr\n${third}\n`);
    const resumed = await batch([input, '--output', output, '--resume']);
    expect(resumed.code).toBe(2);
    expect(resumed.stderr).toContain('line 2 is not a result line of esign (invalid JSON)');
    expect(server.requests).toHaveLength(0);
  });
});

describe('a resume reads the journal: only its last line can be torn', () => {
  /**
   * The files of a run killed after it sent records 2 and 3 and stored only record 1's result: the
   * journal holds their reservations and sent notes, the note for 2 garbled (or whole).
   */
  async function killedRun(noteFor2: (offset: number) => string) {
    const { input, output } = await finishedRun([1, 2, 3]);
    const [one, two, three] = readFileSync(output, 'utf8')
      .split('\n')
      .map((line) => JSON.parse(line || '{}'));
    writeFileSync(output, `${JSON.stringify(one)}\n`);
    const offset = Buffer.byteLength(`${JSON.stringify(one)}\n`);
    const reservation = (result: { line: number; fingerprint: string }) =>
      JSON.stringify({ line: result.line, fingerprint: result.fingerprint, offset, reserved: true });
    writeFileSync(
      `${output}.pending`,
      [
        JSON.stringify({ boot: currentBoot() }),
        reservation(two),
        reservation(three),
        noteFor2(offset),
        JSON.stringify({ sent: 3, offset }),
        '',
      ].join('\n'),
    );
    return { input, output };
  }

  it('reports a garbled line before others with its number (exit 2), and sends nothing', async () => {
    const { input, output } = await killedRun(() => '{"sent":2,"offs');
    const resumed = await batch([input, '--output', output, '--resume']);
    expect(resumed.code).toBe(2);
    expect(resumed.stderr).toContain(
      `${output}.pending: line 4 is not an entry of esign's batch journal (invalid JSON).`,
    );
    expect(server.requests).toHaveLength(0);
    const dry = await batch([input, '--output', output, '--resume', '--dry-run']);
    expect(dry.code).toBe(2);
    expect(dry.stderr).toContain('line 4 is not an entry');
  });

  it('the same journal whole: records 2 and 3 are unknown, neither is sent again', async () => {
    const { input, output } = await killedRun((offset) => JSON.stringify({ sent: 2, offset }));
    const resumed = await batch([input, '--output', output, '--resume']);
    expect(resumed.code).toBe(8);
    expect(resumed.stderr).toContain('0 created, 0 failed, 2 unknown, 1 skipped');
    expect(server.requests).toHaveLength(0);
  });
});

describe('--dry-run predicts the run', () => {
  it('refuses an --output that holds results without --resume, as the run does', async () => {
    const { input, output } = await finishedRun([1, 2, 3, 4]);
    const run = await batch([input, '--output', output]);
    const dry = await batch([input, '--output', output, '--dry-run']);
    expect(run.code).toBe(2);
    expect(dry.code).toBe(2);
    expect(dry.stderr).toBe(run.stderr);
    expect(dry.stderr).toContain('already holds results');
    expect(server.requests).toHaveLength(0);
  });

  it('names results written for another input as such, in the run and the dry run', async () => {
    const { dir, output } = await finishedRun([1, 2, 3, 4, 5, 6]);
    const other = join(dir, 'other.jsonl');
    writeFileSync(other, people([11, 12, 13, 14]));
    for (const extra of [[], ['--dry-run']]) {
      const resumed = await batch([other, '--output', output, '--resume', ...extra]);
      expect(resumed.code).toBe(2);
      expect(resumed.stderr).toContain(
        `--output ${output} holds the results of another input: none of the 6 records it holds results for is a record of this input.`,
      );
      expect(resumed.stderr).not.toContain('invalid');
    }
    expect(server.requests).toHaveLength(0);
  });

  it('a few records changed or moved are still listed line by line', async () => {
    const { input, output } = await finishedRun([1, 2, 3]);
    writeFileSync(input, people([2, 3])); // the first line deleted: the others moved up
    const resumed = await batch([input, '--output', output, '--resume', '--dry-run']);
    expect(resumed.code).toBe(2);
    expect(resumed.stderr).toContain('line 1: this record changed since the results were written');
    expect(resumed.stderr).not.toContain('another input');
  });
});
