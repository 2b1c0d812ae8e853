// What the stdout sink gives back when its reader is gone: the results it wrote last (some 256 KB),
// kept as the bytes of their JSON lines and read back only then, equal to the results written, with
// or without the lines a CI runner sees.
import { describe, expect, it } from 'vitest';
import type { ResultLine } from '../../src/batch/formats.js';
import { stdoutSink } from '../../src/batch/sinks.js';
import { resultLinesForLog } from '../../src/ci/batch-summary.js';
import type { OutputStream } from '../../src/context.js';

function brokenLater() {
  const written: string[] = [];
  let fail: ((error: unknown) => void) | undefined;
  const stream = {
    write: (text: string) => written.push(text),
    onFailure: (listener: (error: unknown) => void) => {
      fail = listener;
    },
  } as unknown as OutputStream;
  return { stream, written, breakNow: () => fail?.(Object.assign(new Error('EPIPE'), { code: 'EPIPE' })) };
}

const created = (line: number): ResultLine => ({
  line,
  ok: true,
  envelope_id: `01JD7X4ZQ8G1N6RVS0Y2M${String(line).padStart(5, '0')}`,
  signing_url: `https://sign.example.com/s/${line}?t=ü`,
  status: 'ready',
  request_id: `req_${line}`,
  fingerprint: `fp${line}`,
});
const failed = (line: number): ResultLine => ({
  line,
  ok: false,
  error: { code: 'outcome_unknown', message: `no answer for ${line}`, status: null },
  fingerprint: `fp${line}`,
});

describe('stdout sink', () => {
  for (const [name, lines] of [
    ['a terminal or a pipe', undefined],
    ['GitHub Actions', 'actions'],
  ] as const) {
    it(`gives back the results written last when the reader is gone (${name})`, async () => {
      const { stream, written, breakNow } = brokenLater();
      const log = brokenLater();
      const sink = stdoutSink(stream, lines ? resultLinesForLog(log.stream) : {});
      const results: ResultLine[] = [];
      for (let line = 1; line <= 3000; line++) {
        const result = line % 7 === 0 ? failed(line) : created(line);
        results.push(result);
        sink.write(result);
        if (line % 5 === 0) await sink.flushed();
      }
      await sink.flushed();
      expect(written.join('').split('\n')).toHaveLength(3001);
      breakNow();
      const unread = sink.unread?.() ?? [];
      // The newest some 256 KB of lines (of 3,000 results, the last thousand or so), in order.
      expect(unread.length).toBeGreaterThan(500);
      expect(unread.length).toBeLessThan(3000);
      expect(unread).toEqual(results.slice(results.length - unread.length));
    });
  }
});
