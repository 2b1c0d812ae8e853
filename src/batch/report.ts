// The end-of-run report: one typed object that the batch's run core returns, from which the summary
// on stderr is rendered (and, for the GitHub Action, a job summary) without touching batch internals.

import { shellQuote } from '../text/shell.js';
import { secondsText } from '../text/units.js';
import { type FailureGroup, MAX_ERROR_GROUPS } from './failure-groups.js';
import type { LimiterState } from './pacing/rate-limiter.js';
import { SAME_FAILURE_STOP_AFTER } from './policy.js';
import type { BatchCounts } from './run-batch.js';

/** A record that failed or whose outcome is unknown, as the report lists it. */
export interface ReportedRecord {
  line: number;
  /** The signatory's email, when the record had one. */
  email: string | undefined;
  state: 'failed' | 'unknown';
  message: string;
}

/** The most records a report lists; `recordsLeftOff` counts the rest. */
export const MAX_REPORTED_RECORDS = 50;

export interface BatchReport {
  /** Records in the input. */
  total: number;
  created: number;
  failed: number;
  unknown: number;
  skipped: number;
  /** The sending phase, in milliseconds. */
  elapsedMs: number;
  /** Records settled per second while sending; undefined when too short to tell. */
  rate: number | undefined;
  /** 429 answers met, and how long sends were held back for them in all. */
  rateLimited: number;
  waitedMs: number;
  /** The absolute path of --output; undefined when results went to stdout. */
  resultsFile: string | undefined;
  /** Stopped by Ctrl-C (or SIGTERM). */
  interrupted: boolean;
  /**
   * Why the run stopped sending on its own: the API refused the token (401), or the first answered
   * records all failed with the same error (`same_failure`); undefined when it did not.
   */
  stoppedBy: 'unauthenticated' | 'same_failure' | undefined;
  /** Records neither sent nor settled before: the run stopped (interrupt, a stop) before them. */
  notSent: number;
  /** Why the results could not be stored (closed pipe, full disk), if they could not. */
  outputError: string | undefined;
  /** Envelopes created (or maybe created) whose results could not be stored. */
  unwritten: number;
  /** Failed and unknown records, in the order they settled, at most MAX_REPORTED_RECORDS. */
  records: ReportedRecord[];
  recordsLeftOff: number;
  /** Failed and unknown records by error (failure-groups.ts), the largest first. */
  groups: FailureGroup[];
  /** Records of errors past the groups kept. */
  otherFailures: number;
}

export function buildReport(input: {
  total: number;
  counts: BatchCounts;
  elapsedMs: number;
  limits: LimiterState;
  resultsFile: string | undefined;
  interrupted: boolean;
  stoppedBy?: BatchReport['stoppedBy'];
  notSent?: number;
  outputError: string | undefined;
  unwritten: number;
  records: ReportedRecord[];
  recordsSeen: number;
  groups?: FailureGroup[];
  otherFailures?: number;
}): BatchReport {
  const { counts, elapsedMs } = input;
  const sent = counts.created + counts.failed + counts.unknown;
  return {
    total: input.total,
    ...counts,
    elapsedMs,
    // Under a tenth of a second the rate says nothing (and a 0.0 s summary would show a made-up one).
    rate: elapsedMs >= 100 && sent > 0 ? (sent * 1000) / elapsedMs : undefined,
    rateLimited: input.limits.rateLimited,
    waitedMs: input.limits.waitedMs,
    resultsFile: input.resultsFile,
    interrupted: input.interrupted,
    stoppedBy: input.stoppedBy,
    notSent: input.notSent ?? 0,
    outputError: input.outputError,
    unwritten: input.unwritten,
    records: input.records.slice(0, MAX_REPORTED_RECORDS),
    recordsLeftOff: Math.max(0, input.recordsSeen - MAX_REPORTED_RECORDS),
    groups: input.groups ?? [],
    otherFailures: input.otherFailures ?? 0,
  };
}

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/** The summary line on stderr. `where`: "in results.jsonl" or "on stdout". */
export function summaryText(report: BatchReport, where: string): string {
  const rate = report.rate === undefined ? '' : ` (${report.rate.toFixed(0)}/s)`;
  let text = `Batch: ${report.created} created, ${report.failed} failed, ${report.unknown} unknown, ${report.skipped} skipped of ${report.total} records in ${secondsText(report.elapsedMs)}${rate}; results ${where}.\n`;
  if (report.unwritten > 0) {
    // The counts above are of stored results; these may be created without one (or unread on stdout).
    text += `${plural(report.unwritten, 'envelope')} created (or maybe created) may have no stored result: listed below.\n`;
  }
  if (report.rateLimited > 0) {
    text += `The API rate-limited ${plural(report.rateLimited, 'request')} (429); the batch waited ${secondsText(report.waitedMs)} for it in all.\n`;
  }
  return text;
}

/** "lines 3, 4, 9" (sorted), then "and N more" for the group's records past those listed. */
export function groupLinesText(group: FailureGroup): string {
  const lines = [...group.lines].sort((a, b) => a - b);
  const more = group.count - lines.length;
  const listed = `${lines.length === 1 ? 'line' : 'lines'} ${lines.join(', ')}`;
  return more > 0 ? `${listed} and ${more} more` : listed;
}

/**
 * The failed and unknown records on stderr, by error, as `create` prints its own error: for each,
 * `error: line N (and M more records): <message>` (`warning:` for unknown outcomes), the first lines,
 * then the hint, once. `skip`: the error the run stops with and prints itself (a 401).
 * `listAll`: the command that lists every one of them, when there is one.
 */
export function failureListText(
  report: Pick<BatchReport, 'groups' | 'otherFailures'>,
  listAll: string | undefined,
  skip?: (group: FailureGroup) => boolean,
): string {
  const groups = report.groups.filter((group) => !skip?.(group));
  if (groups.length === 0) return '';
  let text = '';
  for (const group of groups) {
    const others = group.count > 1 ? ` (and ${plural(group.count - 1, 'more record', 'more records')})` : '';
    const level = group.state === 'unknown' ? 'warning' : 'error';
    const what = group.state === 'unknown' ? 'outcome unknown: ' : '';
    text += `${level}: line ${group.lines[0]}${others}: ${what}${group.message}\n`;
    if (group.count > 1) text += `  ${groupLinesText(group)}\n`;
    if (group.hint) text += `hint: ${group.hint}\n`;
  }
  if (report.otherFailures > 0) {
    text += `${plural(report.otherFailures, 'more record')} failed with yet other errors (only the first ${MAX_ERROR_GROUPS} errors are listed).\n`;
  }
  if (listAll) text += `Every failed and unknown record: ${listAll}\n`;
  return text;
}

/**
 * The command that lists every failed and unknown result of a results file: grep, which every
 * system that runs a POSIX shell has (jq is often missing on CI images and Macs). Each line it
 * prints is a whole result: line, error, hint, request id.
 */
export function listFailuresCommand(resultsFile: string): string {
  return `grep '"ok":false' ${shellQuote(resultsFile)}`;
}

/**
 * Why a run that stopped on its own sent no more: the first answered records all failed the same
 * way. `next`: how to go on once the cause is fixed (the resume command, or "run again").
 */
export function sameFailureStopText(report: Pick<BatchReport, 'notSent' | 'created'>, next: string): string {
  return `Stopped: the first ${SAME_FAILURE_STOP_AFTER} records the API answered all failed with the same error (above), so the others would too; ${plural(report.notSent, 'record was', 'records were')} not sent. Fix the cause, then ${next}\n(--keep-going sends every record whatever the answers.)\n`;
}
