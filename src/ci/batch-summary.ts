// What `envelope batch` leaves on a GitHub Actions job page: a Markdown summary for
// $GITHUB_STEP_SUMMARY and the step outputs created, failed, unknown and results_file. The batch
// hands over a report; these return text, and publishBatchReport appends it to the runner's files.
import { type FailureGroup, groupLinesText } from '../batch/failure-groups.js';
import { SAME_FAILURE_STOP_AFTER } from '../batch/policy.js';
import type { BatchReport, ReportedRecord } from '../batch/report.js';
import type { StdoutLines } from '../batch/sinks.js';
import type { Env, OutputStream } from '../context.js';
import { OutputFailedError } from '../errors.js';
import { type Problem, problemText } from '../problems.js';
import { redactStrings } from '../text/redact.js';
import { secondsText } from '../text/units.js';
import {
  appendRunnerFile,
  errorAnnotation,
  formatOutputs,
  githubFiles,
  inertJsonLine,
  maskValues,
  warningAnnotation,
} from './github-actions.js';

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

/**
 * Text from the server or from a file (an API message, an email, an input problem) on its way into
 * the job summary: every such text goes through here, and only here.
 */
function markdownText(text: string): string {
  return escapeMarkdownCell(text);
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

/** What the heading says of the run: how it ended, in a few words that are true. */
function verdictOf(report: BatchReport): string {
  if (report.interrupted) return '⏹ interrupted';
  if (report.outputError !== undefined) return '⚠️ the results could not all be stored';
  if (report.stoppedBy === 'unauthenticated') return '⛔ stopped: the API refused the token';
  if (report.stoppedBy === 'same_failure') {
    return `⛔ stopped: the first ${SAME_FAILURE_STOP_AFTER} answers were all the same error; ${report.notSent} not sent`;
  }
  if (report.failed + report.unknown === 0) return '✅ all created';
  if (report.created > 0) return '⚠️ some records did not end with an envelope';
  return report.unknown === 0
    ? '❌ every record sent failed'
    : `❌ no envelope created for sure (${report.failed} failed, ${report.unknown} unknown)`;
}

/** Each error once: how many records, which lines, the whole message (less the request id), the hint. */
function errorsMarkdown(report: BatchReport): string[] {
  if (report.groups.length === 0) return [];
  const item = (group: FailureGroup) => {
    const what = group.state === 'unknown' ? 'outcome unknown' : 'failed';
    const head = `- **${group.count} ${what}** (${groupLinesText(group)}): ${markdownText(group.sameMessage)}`;
    return group.hint ? [head, `  - hint: ${markdownText(group.hint)}`] : [head];
  };
  const others =
    report.otherFailures > 0 ? [`- ${report.otherFailures} more with other errors (in the results).`] : [];
  return ['#### Errors', '', ...report.groups.flatMap(item), ...others, ''];
}

/**
 * What the job summary may show of the people in a batch. A summary is public on a public
 * repository: by default it names records by their line alone; `--summary-emails` adds each failed
 * record's signatory email, for a private repository whose readers need it.
 */
export interface SummaryPrivacy {
  emails: boolean;
}

/**
 * A record's signatory as a report may show it, decided once for the job summary and the log: its
 * email when the privacy allows (`--summary-emails`), '—' for a record without one; undefined when
 * it is left out.
 */
export function shownSignatory(email: string | undefined, privacy: SummaryPrivacy): string | undefined {
  if (!privacy.emails) return undefined;
  return email ?? '—';
}

/** The job summary: counts, time, rate, 429s, each error once, and a capped table of the records. */
export function batchSummaryMarkdown(
  report: BatchReport,
  privacy: SummaryPrivacy = { emails: false },
): string {
  const verdict = verdictOf(report);
  const rate = report.rate === undefined ? '—' : `${report.rate.toFixed(1)}/s`;
  const lines = [
    `### esign envelope batch: ${verdict}`,
    '',
    '| created | failed | unknown | skipped | records | elapsed | rate | 429 answers | waited for 429s |',
    '|--:|--:|--:|--:|--:|--:|--:|--:|--:|',
    `| ${report.created} | ${report.failed} | ${report.unknown} | ${report.skipped} | ${report.total} | ${formatElapsed(report.elapsedMs)} | ${rate} | ${report.rateLimited} | ${formatElapsed(report.waitedMs)} |`,
    '',
    ...errorsMarkdown(report),
  ];
  const problemCount = report.records.length + report.recordsLeftOff;
  if (problemCount > 0) {
    // Unknown ones first (each needs a check before it is sent again), then by line.
    const isUnknown = (row: ReportedRecord) => (row.state === 'unknown' ? 0 : 1);
    const rows = [...report.records]
      .sort((a, b) => isUnknown(a) - isUnknown(b) || a.line - b.line)
      .slice(0, MAX_SUMMARY_ROWS);
    const email = (row: ReportedRecord) => {
      const shown = shownSignatory(row.email, privacy);
      return shown === undefined ? '' : ` ${markdownText(shown)} |`;
    };
    lines.push(
      `#### Failed and unknown records${problemCount > rows.length ? ` (${rows.length} of ${problemCount})` : ''}`,
      '',
      privacy.emails ? '| line | signatory email | outcome | error |' : '| line | outcome | error |',
      privacy.emails ? '|--:|---|---|---|' : '|--:|---|---|',
      ...rows.map(
        (row) =>
          `| ${row.line} |${email(row)} ${row.state} | ${markdownText(cut(row.message, MAX_MESSAGE_CHARS))} |`,
      ),
      '',
    );
    if (!privacy.emails) {
      lines.push(
        '_Signatory emails are left out: a job summary is public on a public repository. The results file has them; `--summary-emails` shows them here._',
        '',
      );
    }
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
 * The annotations of a batch's failed and unknown records: an `::error` for each error (at most
 * MAX_ERROR_GROUPS, the largest first), a `::warning` for each kind of unknown outcome, with the
 * lines, the message and the hint. `skip`: an error annotated elsewhere (the run's own, a 401).
 */
export function batchAnnotations(report: BatchReport, skip?: (group: FailureGroup) => boolean): string {
  return report.groups
    .filter((group) => !skip?.(group))
    .map((group) => {
      const records = `${group.count} ${group.count === 1 ? 'record' : 'records'}`;
      const status = group.status === null ? '' : `, ${group.status}`;
      const message = `${groupLinesText(group)}: ${group.sameMessage}${group.hint ? `\n${group.hint}` : ''}`;
      return group.state === 'unknown'
        ? warningAnnotation(`esign: ${records} with an unknown outcome (${group.code}${status})`, message)
        : errorAnnotation(`esign: ${records} failed (${group.code}${status})`, message);
    })
    .join('');
}

/** Problems listed in the job summary of an invalid input (the log lists as many as esign does). */
const MAX_INVALID_ROWS = 20;

/** The input problems of a refused batch. */
export interface InvalidInput {
  total: number;
  invalid: number;
  problems: readonly Problem[];
  problemCount: number;
  /** The error printed (its message), and what to do. */
  message: string;
  hint: string | undefined;
}

/** The job summary of a batch refused before anything was sent: which lines, and why. */
export function invalidInputMarkdown(input: InvalidInput): string {
  const rows = input.problems.slice(0, MAX_INVALID_ROWS).map((problem) => {
    const what = markdownText(problemText({ ...problem, line: undefined }));
    return `| ${problem.line ?? '—'} | ${what} |`;
  });
  const more = input.problemCount - rows.length;
  return `${[
    `### esign envelope batch: ❌ ${input.invalid} of ${input.total} ${input.total === 1 ? 'record is' : 'records are'} invalid; nothing was sent`,
    '',
    markdownText(input.message),
    '',
    '| line | problem |',
    '|--:|---|',
    ...rows,
    '',
    ...(more > 0 ? [`… and ${more} more ${more === 1 ? 'problem' : 'problems'}.`, ''] : []),
    ...(input.hint ? [markdownText(input.hint), ''] : []),
  ].join('\n')}\n`;
}

/**
 * In GitHub Actions, a batch refused for invalid records: the step outputs (nothing created, the
 * number of invalid records) and the job summary. A runner file that cannot be written is left
 * unsaid: the input error is the one to report.
 */
export function publishInvalidInput(input: InvalidInput, env: Env): void {
  const files = githubFiles(env);
  const outputs = {
    created: '0',
    failed: '0',
    unknown: '0',
    results_file: '',
    invalid: String(input.invalid),
  };
  const append = (path: string | undefined, text: string) => {
    if (!path) return;
    try {
      appendRunnerFile(path, text);
    } catch {
      // The error that refused the input is reported, with its exit code (2), all the same.
    }
  };
  append(files.stepSummary, invalidInputMarkdown(input));
  append(files.output, formatOutputs(outputs));
}

/**
 * In GitHub Actions, a batch refused before anything was sent for a reason other than its records
 * (results already in --output, an unfinished earlier run): the step outputs say nothing was
 * created, and the job summary says why. As for invalid input, a runner file that cannot be
 * written is left unsaid.
 */
export function publishRefused(refusal: { message: string; hint: string | undefined }, env: Env): void {
  const files = githubFiles(env);
  const summary = [
    '### esign envelope batch: ⛔ refused; nothing was sent',
    '',
    markdownText(refusal.message),
    '',
    ...(refusal.hint ? [markdownText(refusal.hint), ''] : []),
  ].join('\n');
  for (const [path, text] of [
    [files.stepSummary, `${summary}\n`],
    [files.output, formatOutputs({ created: '0', failed: '0', unknown: '0', results_file: '' })],
  ] as const) {
    if (!path) continue;
    try {
      appendRunnerFile(path, text);
    } catch {
      // The refusal is reported, with its exit code (2), all the same.
    }
  }
}

/**
 * In GitHub Actions (the caller checks githubActionsEnabled): the summary appended to
 * $GITHUB_STEP_SUMMARY and the outputs to $GITHUB_OUTPUT, each when the runner names its file.
 * A file that cannot be written is an OutputFailedError naming it (the envelopes exist already).
 */
export function publishBatchReport(
  raw: BatchReport,
  env: Env,
  /** The run's redaction (Context.redact): applied to the report before anything is escaped. */
  redactText: (text: string) => string,
  privacy: SummaryPrivacy = { emails: false },
): void {
  // Markdown escaping (`tok\_live\_…`) would hide the token from any later redaction and from
  // the runner's own masker: every string of the report is redacted first.
  const report = redactStrings(raw, redactText);
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
  append(files.stepSummary, '$GITHUB_STEP_SUMMARY', batchSummaryMarkdown(report, privacy));
  append(files.output, '$GITHUB_OUTPUT', formatOutputs(batchOutputs(report)));
}

/**
 * Result lines on stdout in GitHub Actions: the mask for each signing URL written to `stderr` first
 * (the runner reads commands from both streams, and the URL must be masked before any line that
 * holds it), and each line made inert for the runner's command parser.
 */
export function resultLinesForLog(stderr: OutputStream): StdoutLines {
  return {
    before: (result) => {
      if (result.ok) maskValues(stderr, [result.signing_url]);
    },
    line: inertJsonLine,
  };
}
