// What `envelope batch` leaves on a GitHub Actions job page: a Markdown summary for
// $GITHUB_STEP_SUMMARY and the step outputs created, failed, unknown and results_file. The batch
// hands over a report; these return text, and publishBatchReport appends it to the runner's files.
import type { BatchReport, ReportedRecord } from '../batch/report.js';
import type { Env, OutputStream } from '../context.js';
import { OutputFailedError } from '../errors.js';
import { secondsText } from '../text/units.js';
import { appendRunnerFile, formatOutputs, githubFiles, inertJsonLine, maskValues } from './github-actions.js';

// The report is the batch's own (src/batch/report.ts): one type for the stderr summary and this.
export type { BatchReport, ReportedRecord } from '../batch/report.js';

/** Rows of the failed/unknown table (of the report's records); the rest is counted and left to the results file. */
export const MAX_SUMMARY_ROWS = 25;
/** A message longer than this is cut in the table (the results file has it whole). */
const MAX_MESSAGE_CHARS = 200;

/**
 * Text for a Markdown table cell: no line breaks, no `|`, and nothing GitHub would render as markup
 * or HTML (a record's email or an API message is data).
 */
export function escapeMarkdownCell(text: string): string {
  return text
    .replace(/[\r\n]+/g, ' ')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/[\\`*_{}[\]()#+\-.!|~]/g, (c) => `\\${c}`);
}

function cut(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

function formatElapsed(ms: number): string {
  const seconds = ms / 1000;
  if (seconds < 60) return secondsText(ms);
  const minutes = Math.floor(seconds / 60);
  return `${minutes} min ${Math.round(seconds - minutes * 60)} s`;
}

/** The job summary: counts, time, rate, 429s, and a capped table of failed and unknown records. */
export function batchSummaryMarkdown(report: BatchReport): string {
  const verdict = report.interrupted
    ? '⏹ interrupted'
    : report.outputError !== undefined
      ? '⚠️ the results could not all be stored'
      : report.failed + report.unknown === 0
        ? '✅ all created'
        : '⚠️ some records did not end with an envelope';
  const rate = report.rate === undefined ? '—' : `${report.rate.toFixed(1)}/s`;
  const lines = [
    `### esign envelope batch: ${verdict}`,
    '',
    '| created | failed | unknown | skipped | records | elapsed | rate | 429 answers | waited for 429s |',
    '|--:|--:|--:|--:|--:|--:|--:|--:|--:|',
    `| ${report.created} | ${report.failed} | ${report.unknown} | ${report.skipped} | ${report.total} | ${formatElapsed(report.elapsedMs)} | ${rate} | ${report.rateLimited} | ${formatElapsed(report.waitedMs)} |`,
    '',
  ];
  const problemCount = report.records.length + report.recordsLeftOff;
  if (problemCount > 0) {
    // Unknown ones first (each needs a check before it is sent again), then by line.
    const isUnknown = (row: ReportedRecord) => (row.state === 'unknown' ? 0 : 1);
    const rows = [...report.records]
      .sort((a, b) => isUnknown(a) - isUnknown(b) || a.line - b.line)
      .slice(0, MAX_SUMMARY_ROWS);
    lines.push(
      `#### Failed and unknown records${problemCount > rows.length ? ` (${rows.length} of ${problemCount})` : ''}`,
      '',
      '| line | signatory email | outcome | error |',
      '|--:|---|---|---|',
      ...rows.map(
        (row) =>
          `| ${row.line} | ${row.email ? escapeMarkdownCell(row.email) : '—'} | ${row.state} | ${escapeMarkdownCell(cut(row.message, MAX_MESSAGE_CHARS))} |`,
      ),
      '',
    );
    if (problemCount > rows.length) {
      lines.push(
        `… and ${problemCount - rows.length} more${report.resultsFile ? ' in the results file' : ' in the results'}.`,
        '',
      );
    }
  }
  if (report.unknown > 0) {
    lines.push(
      '> [!WARNING]',
      '> An **unknown** record was sent and its answer never arrived: the envelope may exist. Check before sending it again; `--resume` never re-sends it unless you add `--retry-unknown`.',
      '',
    );
  }
  if (report.resultsFile) {
    lines.push(
      `Results: \`${report.resultsFile.replaceAll('`', "'")}\` (one JSON line a record; it holds signing URLs, which are bearer links: keep it out of logs and public artifacts).`,
      '',
    );
  }
  return `${lines.join('\n')}\n`;
}

/** The step outputs of a batch run. */
export function batchOutputs(report: BatchReport): Record<string, string> {
  return {
    created: String(report.created),
    failed: String(report.failed),
    unknown: String(report.unknown),
    results_file: report.resultsFile ?? '',
  };
}

/**
 * In GitHub Actions (the caller checks githubActionsEnabled): the summary appended to
 * $GITHUB_STEP_SUMMARY and the outputs to $GITHUB_OUTPUT, each when the runner names its file.
 * A file that cannot be written is an OutputFailedError naming it (the envelopes exist already).
 */
export function publishBatchReport(report: BatchReport, env: Env): void {
  const files = githubFiles(env);
  const append = (path: string | undefined, name: string, text: string) => {
    if (!path) return;
    try {
      appendRunnerFile(path, text);
    } catch (error) {
      throw new OutputFailedError(error as NodeJS.ErrnoException, `${name} (${path})`, {
        hint: `The batch itself is done (${report.created} created); its results are ${report.resultsFile ? `in ${report.resultsFile}` : 'on stdout'}. Do not run it again without --resume.`,
      });
    }
  };
  append(files.stepSummary, '$GITHUB_STEP_SUMMARY', batchSummaryMarkdown(report));
  append(files.output, '$GITHUB_OUTPUT', formatOutputs(batchOutputs(report)));
}

/**
 * A result line on its way to stdout in GitHub Actions: the mask for its signing URL written to
 * `stderr` first (the runner reads commands from both streams, and the URL must be masked before
 * any line that holds it), and the line made inert for the runner's command parser.
 * `text` is one JSON line with its newline, as the batch writes it.
 */
export function batchResultLineForLog(text: string, stderr: OutputStream): string {
  let url: unknown;
  try {
    url = (JSON.parse(text) as { signing_url?: unknown }).signing_url;
  } catch {
    url = undefined;
  }
  if (typeof url === 'string') maskValues(stderr, [url]);
  return inertJsonLine(text);
}
