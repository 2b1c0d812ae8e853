// What `envelope batch` leaves on a GitHub Actions job page: a Markdown summary for
// $GITHUB_STEP_SUMMARY and the step outputs created, failed, unknown and results_file. The batch
// hands over a report; these return text, and publishBatchReport appends it to the runner's files.
import type { Env } from '../context.js';
import { OutputFailedError } from '../errors.js';
import { appendRunnerFile, formatOutputs, githubFiles } from './github-actions.js';

/** A record that did not end with an envelope. */
export interface BatchProblemRecord {
  /** The record's line in the input file. */
  line: number;
  /** The signatory's email, when the record had one. */
  email?: string | undefined;
  /** `outcome_unknown`, `rejected`, … (the results file's error.code). */
  code: string;
  message: string;
}

/** What a finished (or interrupted) batch run reports. */
export interface BatchReport {
  total: number;
  created: number;
  failed: number;
  unknown: number;
  skipped: number;
  elapsedMs: number;
  /** 429 answers met during the run (each retried or, past the budget, failed). */
  rateLimited: number;
  /** The results file (--output), or undefined when the results went to stdout. */
  resultsFile: string | undefined;
  /** Failed and unknown records; the summary's table shows MAX_SUMMARY_ROWS, unknown ones first. */
  problems: readonly BatchProblemRecord[];
  interrupted?: boolean;
}

/** Rows of the failed/unknown table; the rest is counted and left to the results file. */
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
  if (seconds < 60) return `${seconds.toFixed(1)} s`;
  const minutes = Math.floor(seconds / 60);
  return `${minutes} min ${Math.round(seconds - minutes * 60)} s`;
}

/** The job summary: counts, time, rate, 429s, and a capped table of failed and unknown records. */
export function batchSummaryMarkdown(report: BatchReport): string {
  const sent = report.created + report.failed + report.unknown;
  const seconds = report.elapsedMs / 1000;
  const rate = seconds > 0 ? sent / seconds : 0;
  const verdict = report.interrupted
    ? '⏹ interrupted'
    : report.failed + report.unknown === 0
      ? '✅ all created'
      : '⚠️ some records did not end with an envelope';
  const lines = [
    `### esign envelope batch: ${verdict}`,
    '',
    '| created | failed | unknown | skipped | records | elapsed | rate | 429 answers |',
    '|--:|--:|--:|--:|--:|--:|--:|--:|',
    `| ${report.created} | ${report.failed} | ${report.unknown} | ${report.skipped} | ${report.total} | ${formatElapsed(report.elapsedMs)} | ${rate.toFixed(1)}/s | ${report.rateLimited} |`,
    '',
  ];
  if (report.problems.length > 0) {
    // Unknown ones first (each needs a check before it is sent again), then by line.
    const isUnknown = (row: BatchProblemRecord) => (row.code === 'outcome_unknown' ? 0 : 1);
    const rows = [...report.problems]
      .sort((a, b) => isUnknown(a) - isUnknown(b) || a.line - b.line)
      .slice(0, MAX_SUMMARY_ROWS);
    lines.push(
      `#### Failed and unknown records${report.problems.length > rows.length ? ` (first ${rows.length} of ${report.problems.length})` : ''}`,
      '',
      '| line | signatory email | outcome | error |',
      '|--:|---|---|---|',
      ...rows.map(
        (row) =>
          `| ${row.line} | ${row.email ? escapeMarkdownCell(row.email) : '—'} | ${row.code === 'outcome_unknown' ? 'unknown' : 'failed'} | ${escapeMarkdownCell(cut(`${row.code}: ${row.message}`, MAX_MESSAGE_CHARS))} |`,
      ),
      '',
    );
    if (report.problems.length > rows.length) {
      lines.push(`… and ${report.problems.length - rows.length} more in the results file.`, '');
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
