// The end-of-run report: one typed object that the batch's run core returns, from which the summary
// on stderr is rendered (and, for the GitHub Action, a job summary) without touching batch internals.

import { secondsText } from '../text/units.js';
import type { LimiterState } from './pacing/rate-limiter.js';
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
  /** Why the results could not be stored (closed pipe, full disk), if they could not. */
  outputError: string | undefined;
  /** Envelopes created (or maybe created) whose results could not be stored. */
  unwritten: number;
  /** Failed and unknown records, in the order they settled, at most MAX_REPORTED_RECORDS. */
  records: ReportedRecord[];
  recordsLeftOff: number;
}

export function buildReport(input: {
  total: number;
  counts: BatchCounts;
  elapsedMs: number;
  limits: LimiterState;
  resultsFile: string | undefined;
  interrupted: boolean;
  outputError: string | undefined;
  unwritten: number;
  records: ReportedRecord[];
  recordsSeen: number;
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
    outputError: input.outputError,
    unwritten: input.unwritten,
    records: input.records.slice(0, MAX_REPORTED_RECORDS),
    recordsLeftOff: Math.max(0, input.recordsSeen - MAX_REPORTED_RECORDS),
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
