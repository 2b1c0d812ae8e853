import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { BatchReport } from '../../src/batch/report.js';
import { MAX_REPORTED_RECORDS } from '../../src/batch/report.js';
import { stdoutSink } from '../../src/batch/sinks.js';
import {
  batchOutputs,
  batchSummaryMarkdown,
  escapeMarkdownCell,
  MAX_SUMMARY_ROWS,
  publishBatchReport,
  resultLinesForLog,
} from '../../src/ci/batch-summary.js';
import {
  errorAnnotation,
  escapeData,
  formatOutputs,
  githubActionsEnabled,
  inertJsonLine,
  maskCommand,
} from '../../src/ci/github-actions.js';
import type { OutputStream } from '../../src/context.js';
import { CommandGuard } from '../../src/text/runner-commands.js';

/**
 * The runner's reading of $GITHUB_OUTPUT, ported from actions/runner
 * src/Runner.Worker/FileCommandManager.cs (EnvFileKeyValuePairs): `name=value` lines, or
 * `name<<DELIMITER` … `DELIMITER` with the value's own line breaks kept (as on Linux and macOS).
 */
function runnerReadsOutputs(text: string): [string, string][] {
  const pairs: [string, string][] = [];
  const lines = new RunnerLines(text);
  for (let next = lines.read(); next; next = lines.read()) {
    const { line } = next;
    if (line === '') continue;
    const equals = line.indexOf('=');
    const heredoc = line.indexOf('<<');
    if (equals >= 0 && (heredoc < 0 || equals < heredoc)) {
      pairs.push([line.slice(0, equals), line.slice(equals + 1)]);
    } else if (heredoc >= 0) {
      pairs.push([line.slice(0, heredoc), runnerReadsHeredoc(lines, line.slice(heredoc + 2))]);
    } else throw new Error(`Invalid format '${line}'`);
  }
  return pairs;
}

/** The runner's line reader over the file's text. */
class RunnerLines {
  index = 0;
  constructor(readonly text: string) {}

  read(): { line: string; newline: string } | undefined {
    if (this.index >= this.text.length) return undefined;
    // Linux and macOS runners end lines at LF only (Windows runners also at CRLF).
    const lf = this.text.indexOf('\n', this.index);
    const line = this.text.slice(this.index, lf < 0 ? this.text.length : lf);
    this.index = lf < 0 ? this.text.length : lf + 1;
    return { line, newline: lf < 0 ? '' : '\n' };
  }
}

/** The value of a `name<<DELIMITER` entry: the lines up to DELIMITER, their own line breaks kept. */
function runnerReadsHeredoc(lines: RunnerLines, delimiter: string): string {
  const start = lines.index;
  let end = lines.index;
  for (let value = lines.read(); ; value = lines.read()) {
    if (!value) throw new Error(`Matching delimiter not found '${delimiter}'`);
    if (value.line === delimiter) break;
    if (value.newline === '') throw new Error('EOF marker missing new line');
    end = lines.index - value.newline.length;
  }
  return end > start ? lines.text.slice(start, end) : '';
}

/** The runner's unescaping of command data (actions/runner src/Runner.Common/ActionCommand.cs). */
function runnerUnescapesData(escaped: string): string {
  return escaped.replaceAll('%0D', '\r').replaceAll('%0A', '\n').replaceAll('%25', '%');
}

describe('step outputs in the runner format', () => {
  it('writes single-line values as name=value', () => {
    expect(
      formatOutputs({
        envelope_id: '01JD',
        signing_url: 'https://sign.example.com/s/1?a=b',
        status: 'ready',
      }),
    ).toBe('envelope_id=01JD\nsigning_url=https://sign.example.com/s/1?a=b\nstatus=ready\n');
  });

  it('uses a heredoc with a delimiter the value does not hold', () => {
    const delimiters = ['EOF', 'EOF', 'OTHER'];
    const text = formatOutputs({ note: 'a\nEOF\nb' }, () => delimiters.shift() as string);
    expect(text).toBe('note<<OTHER\na\nEOF\nb\nOTHER\n');
  });

  it('every value reads back exactly as the runner reads the file (property)', () => {
    const name = fc.stringMatching(/^[a-z_][a-z0-9_]{0,10}$/);
    const value = fc.string({ unit: fc.constantFrom('a', '=', '<', '\n', '\r', 'x', ' ', 'é', '%') });
    fc.assert(
      fc.property(fc.uniqueArray(fc.tuple(name, value), { selector: ([n]) => n, maxLength: 5 }), (pairs) => {
        const text = formatOutputs(Object.fromEntries(pairs));
        expect(runnerReadsOutputs(text)).toEqual(pairs);
      }),
    );
  });
});

describe('workflow commands', () => {
  it('escapes data and properties as the runner unescapes them (property)', () => {
    fc.assert(
      fc.property(fc.string(), (text) => {
        const line = maskCommand(text);
        expect(line.endsWith('\n')).toBe(true);
        expect(line.slice(0, -1)).not.toMatch(/[\r\n]/);
        expect(runnerUnescapesData(line.slice('::add-mask::'.length, -1))).toBe(text);
      }),
    );
    expect(escapeData('50% done\r\nnext')).toBe('50%25 done%0D%0Anext');
  });

  it('a JSON line holds no ##[command] the runner would run, and means the same (property)', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.string(), (value, text) => {
        const object = { line: 3, ok: false, error: { message: `x ##[stop-commands]${text}` }, value };
        const line = inertJsonLine(JSON.stringify(object));
        expect(line).not.toContain('##[');
        expect(JSON.parse(line)).toEqual(JSON.parse(JSON.stringify(object)));
      }),
    );
  });

  it('a JSON line made inert keeps no ##[ the runner finds across an ignorable character (#\\u00ad#[)', () => {
    const json = JSON.stringify({ message: 'x #\u00ad#[stop-commands]y #\u200b#\u00ad[z' });
    const line = inertJsonLine(json);
    expect(new CommandGuard({ anywhere: true }).inert(line)).toBe(line);
    expect(JSON.parse(line)).toEqual(JSON.parse(json));
  });

  it('an annotation keeps : and , of the title out of the command syntax', () => {
    expect(errorAnnotation('esign: usage, exit 2', 'line one\nline two: 100%')).toBe(
      '::error title=esign%3A usage%2C exit 2::line one%0Aline two: 100%25\n',
    );
  });

  it('is on in GitHub Actions unless turned off, flag over ESIGN_CI', () => {
    expect(githubActionsEnabled(undefined, { GITHUB_ACTIONS: 'true' })).toBe(true);
    expect(githubActionsEnabled(undefined, {})).toBe(false);
    expect(githubActionsEnabled(undefined, { GITHUB_ACTIONS: 'true', ESIGN_CI: 'none' })).toBe(false);
    expect(githubActionsEnabled('auto', { GITHUB_ACTIONS: 'true', ESIGN_CI: 'none' })).toBe(true);
    expect(githubActionsEnabled('none', { GITHUB_ACTIONS: 'true' })).toBe(false);
    expect(githubActionsEnabled('github', {})).toBe(true);
  });
});

const report = (over: Partial<BatchReport> = {}): BatchReport => ({
  total: 1000,
  created: 990,
  failed: 7,
  unknown: 1,
  skipped: 2,
  elapsedMs: 83_400,
  rate: 998 / 83.4,
  rateLimited: 12,
  waitedMs: 4_250,
  resultsFile: 'results.jsonl',
  interrupted: false,
  outputError: undefined,
  unwritten: 0,
  records: [
    {
      line: 42,
      email: 'grace_hopper@example.com',
      state: 'failed',
      message: 'The API said: "Template | not *found*"',
    },
    { line: 7, email: undefined, state: 'unknown', message: 'connection reset\nafter sending' },
    { line: 90, email: 'z@example.com', state: 'unknown', message: 'timed out' },
  ],
  recordsLeftOff: 0,
  stoppedBy: undefined,
  notSent: 0,
  groups: [],
  otherFailures: 0,
  ...over,
});

describe('the batch job summary', () => {
  it('shows counts, time, rate, 429s and the failed and unknown records by line, escaped', () => {
    const markdown = batchSummaryMarkdown(report(), { emails: true });
    expect(markdown).toContain('| 990 | 7 | 1 | 2 | 1000 | 1 min 23 s | 12.0/s | 12 | 4.3 s |');
    const rows = markdown.split('\n').filter((line) => /^\| \d+ \| (?!\d)/.test(line));
    expect(rows).toEqual([
      '| 7 | — | unknown | connection reset after sending |',
      '| 90 | z@example\\.com | unknown | timed out |',
      '| 42 | grace\\_hopper@example\\.com | failed | The API said: "Template \\| not \\*found\\*" |',
    ]);
    // By default the people stay out of it: lines and errors only, and how to show the emails.
    const shown = batchSummaryMarkdown(report());
    expect(shown).not.toMatch(/@example/);
    expect(shown.split('\n').filter((line) => /^\| \d+ \| (?!\d)/.test(line))).toEqual([
      '| 7 | unknown | connection reset after sending |',
      '| 90 | unknown | timed out |',
      '| 42 | failed | The API said: "Template \\| not \\*found\\*" |',
    ]);
    expect(shown).toContain('`--summary-emails` shows them here');
    expect(markdown).toContain('> [!WARNING]');
    expect(batchOutputs(report())).toEqual({
      created: '990',
      failed: '7',
      unknown: '1',
      results_file: 'results.jsonl',
    });
  });

  it('caps the table for huge batches and counts the rest', () => {
    // The batch's report keeps the first MAX_REPORTED_RECORDS records and counts the rest.
    const records = Array.from({ length: MAX_REPORTED_RECORDS }, (_, i) => ({
      line: 5000 - i,
      email: `p${i}@example.com`,
      state: 'failed' as const,
      message: 'x'.repeat(1000),
    }));
    const markdown = batchSummaryMarkdown(
      report({ failed: 5000, records, recordsLeftOff: 5000 - MAX_REPORTED_RECORDS }),
      { emails: true },
    );
    const rows = markdown.split('\n').filter((line) => /^\| \d+ \| p/.test(line));
    expect(rows).toHaveLength(MAX_SUMMARY_ROWS);
    expect(rows[0]?.startsWith(`| ${5001 - MAX_REPORTED_RECORDS} |`)).toBe(true);
    expect(markdown).toContain(`(${MAX_SUMMARY_ROWS} of 5000)`);
    expect(markdown).toContain(`… and ${5000 - MAX_SUMMARY_ROWS} more in the results file.`);
    expect(markdown.length).toBeLessThan(20_000);
  });

  it('leaves no HTML or table syntax in a cell (property)', () => {
    fc.assert(
      fc.property(fc.string(), (text) => {
        const cell = escapeMarkdownCell(text);
        expect(cell).not.toMatch(/[<>\r\n]/);
        expect(cell.replaceAll('\\\\', '').replaceAll('\\|', '')).not.toContain('|');
      }),
    );
  });
});

describe('publishing a batch report to the runner', () => {
  it('appends the summary and the outputs to the files the runner names', () => {
    const dir = mkdtempSync(join(tmpdir(), 'esign-publish-'));
    const env = { GITHUB_OUTPUT: join(dir, 'output'), GITHUB_STEP_SUMMARY: join(dir, 'summary') };
    writeFileSync(env.GITHUB_OUTPUT, 'earlier=1\n');
    publishBatchReport(report(), env, (text) => text);
    expect(readFileSync(env.GITHUB_OUTPUT, 'utf8')).toBe(
      'earlier=1\ncreated=990\nfailed=7\nunknown=1\nresults_file=results.jsonl\n',
    );
    expect(readFileSync(env.GITHUB_STEP_SUMMARY, 'utf8')).toBe(batchSummaryMarkdown(report()));
    expect(() =>
      publishBatchReport(report(), { GITHUB_OUTPUT: join(dir, 'no', 'such') }, (text) => text),
    ).toThrow(/Could not write to \$GITHUB_OUTPUT/);
  });
});

describe('a batch result line on its way to stdout in GitHub Actions', () => {
  it('writes the mask for its signing URL to stderr first and returns the line made inert', async () => {
    const written: string[] = [];
    const stream = (name: string) =>
      ({ write: (text: string) => written.push(`${name}:${text}`) }) as unknown as OutputStream;
    const sink = stdoutSink(stream('stdout'), resultLinesForLog(stream('stderr')));
    const url = 'https://sign.example.com/s/abc?t=1';
    const created = {
      line: 3,
      ok: true,
      envelope_id: 'e',
      signing_url: url,
      note: '##[stop-commands]x',
    } as const;
    const line = `${JSON.stringify(created)}\n`;
    sink.write(created);
    await sink.flushed();
    expect(written[0]).toBe(`stderr:::add-mask::${url}\n`);
    const out = (written[1] as string).replace(/^stdout:/, '');
    expect(out).not.toContain('##[');
    expect(JSON.parse(out)).toEqual(JSON.parse(line));
    written.length = 0;
    const result = { line: 4, ok: false, error: { code: 'rejected', message: 'no' } } as const;
    const failed = `${JSON.stringify(result)}\n`;
    sink.write(result);
    await sink.flushed();
    expect(written).toEqual([`stdout:${failed}`]);
  });
});
