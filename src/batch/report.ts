// The end-of-run report: one typed object made from what a run came to, from which the command
// renders the summary on stderr and, for GitHub Actions, a job summary.
import type { FailureGroup } from './failure-groups.js';
import type { LimiterState } from './pacing/rate-limiter.js';

/** How many records came to each end. */
export interface BatchCounts {
  created: number;
  failed: number;
  unknown: number;
  skipped: number;
}

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
