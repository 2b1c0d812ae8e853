// What `envelope batch` says on stderr, from the values the engine returns: the summary, the failed
// records by error, why a run stopped and the command that finishes it, the duplicates, invalid
// records, and envelopes whose results were lost. Pure: text in, text out.

import { type FailureGroup, groupLinesText, MAX_ERROR_GROUPS } from '../../batch/failure-groups.js';
import { SAME_FAILURE_STOP_AFTER } from '../../batch/policy.js';
import type { Duplicate, HeldUnknown, InvalidRecords } from '../../batch/prepare.js';
import type { BatchReport } from '../../batch/report.js';
import type { RecordFailure } from '../../batch/run.js';
import { type SummaryPrivacy, shownSignatory } from '../../ci/batch-summary.js';
import {
  type CliError,
  InputError,
  InterruptedError,
  OUTCOME_UNKNOWN,
  RateLimitedError,
  ServerError,
} from '../../errors.js';
import { problemText } from '../../problems.js';
import { shellQuote } from '../../text/shell.js';
import { escapeControl } from '../../text/terminal-text.js';
import { secondsText, waitText } from '../../text/units.js';

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

/**
 * What the first interrupt says at once: what the run waits for, if anything, and what a second
 * one does, in the words of the signal that came (Ctrl-C at a terminal, SIGTERM from a CI runner
 * or `kill`).
 */
export function stoppingText(inFlight: number, reason: unknown, terminal: boolean): string {
  const signal = reason instanceof InterruptedError ? reason.signalName : undefined;
  const by = signal === 'SIGTERM' ? ' (SIGTERM)' : '';
  // On a terminal, a line of its own after the ^C it echoed (or the live progress line); in a log,
  // no empty line.
  const start = terminal ? '\n' : '';
  if (inFlight === 0) return `${start}stopping${by}: no request is in flight; no new record is sent\n`;
  const requests = `${inFlight} ${inFlight === 1 ? 'request' : 'requests'}`;
  const again = signal === 'SIGTERM' ? 'a second SIGTERM or Ctrl-C abandons them' : 'Ctrl-C again to abort';
  return `${start}stopping${by}: waiting for ${requests} in flight; ${again}\n`;
}

/** What an interrupted run left: records not sent, requests abandoned, the command that finishes. */
export function interruptedText(
  notSent: number,
  abandoned: number,
  /** The command that finishes the run, when its results are in a file. */
  resume: string | undefined,
): string {
  const maybe =
    abandoned === 0
      ? ''
      : ` ${abandoned} ${abandoned === 1 ? 'request in flight was' : 'requests in flight were'} abandoned: the envelope may exist${resume ? ', and --resume reports it as unknown' : ''}.`;
  return `Interrupted: ${notSent} records were not sent.${maybe}${resume ? ` Run the same command with --resume to finish.\n  ${resume}` : ''}\n`;
}

/**
 * The command that lists every unknown result of a results file (those of earlier runs too), as
 * listFailuresCommand lists the failed ones.
 */
function listUnknownCommand(resultsFile: string): string {
  return `grep '"code":"outcome_unknown"' ${shellQuote(resultsFile)}`;
}

/**
 * The records an earlier run left with an unknown outcome, which this run did not send: each by its
 * input line, with its signatory as the job summary shows it (shownSignatory: left out unless
 * --summary-emails), the first ones, then how many more and, when the results are in a file, the
 * command that lists every one. Where to check each is unknownNextStep's, which follows.
 */
export function heldUnknownText(
  held: readonly HeldUnknown[],
  count: number,
  { privacy, resultsFile }: { privacy: SummaryPrivacy; resultsFile: string | undefined },
): string {
  if (count === 0 || held.length === 0) return '';
  const shown = held.map(({ line, email }) => ({ line, who: shownSignatory(email, privacy) }));
  const listed = shown.some(({ who }) => who !== undefined)
    ? shown
        .map(({ line, who }) => `line ${line}${who === undefined ? '' : ` (${escapeControl(who)})`}`)
        .join(', ')
    : `${held.length === 1 ? 'line' : 'lines'} ${held.map(({ line }) => line).join(', ')}`;
  const more = count - held.length;
  const records = count === 1 ? '1 record' : `${count} records`;
  let text = `${records} an earlier run left with an unknown outcome ${count === 1 ? 'is' : 'are'} held back: ${listed}${more > 0 ? `, and ${more} more` : ''}.\n`;
  if (more > 0 && resultsFile !== undefined) text += `  Every one: ${listUnknownCommand(resultsFile)}\n`;
  if (!privacy.emails) {
    text += '  (Their signatories are left out, as in the job summary: the input has them at those lines.)\n';
  }
  return text;
}

/**
 * Records whose outcome is unknown: check before they are sent again. `retryUnknown`: the command
 * that sends them again, when the results are in a file. `checkIn`: whereToCheckEnvelopes.
 */
export function unknownNextStep(
  unknown: number,
  { retryUnknown, checkIn }: { retryUnknown: string | undefined; checkIn: string },
): string {
  const records = unknown === 1 ? '1 record has' : `${unknown} records have`;
  if (retryUnknown === undefined) {
    return `${records} an unknown outcome: the envelope may exist. Check in ${checkIn} before sending them again (the results above say which lines).\n`;
  }
  return `${records} an unknown outcome: the envelope may exist. Check in ${checkIn}; for those that do not exist, run\n  ${retryUnknown}\nwhich sends every unknown record again: a signatory whose envelope does exist gets a second one.\n`;
}

/** The duplicate records found, the first ones listed. */
export function duplicatesWarning(duplicates: readonly Duplicate[], count: number): string {
  const listed = duplicates.map(({ line, sameAs, createdBefore }) =>
    createdBefore
      ? `line ${line}: identical to the record created at line ${sameAs} by the earlier run`
      : `line ${line}: same template, signatory email and merge data as line ${sameAs}`,
  );
  const more = count - duplicates.length;
  const lines = [...listed, ...(more > 0 ? [`… and ${more} more`] : [])];
  return `warning: ${count} duplicate ${count === 1 ? 'record' : 'records'} (the same person would get the same envelope twice):\n${lines.map((line) => `  ${line}\n`).join('')}`;
}

/** The error for invalid records, each problem a line of its details. `what`: what became of the run. */
export function invalidRecordsError(invalid: InvalidRecords, what: string): InputError {
  const listed = invalid.problems.map(problemText);
  const more = invalid.problemCount - listed.length;
  const records = `${invalid.invalid} of ${invalid.total} records ${invalid.invalid === 1 ? 'is' : 'are'} invalid`;
  const problems = plural(invalid.problemCount, 'problem');
  return new InputError(`${records} (${problems}); ${what}.`, {
    details: more > 0 ? [...listed, `… and ${more} more`] : listed,
    hint: 'Fix the records (line numbers are those of the input file) and run again.',
  });
}

// ---------------------------------------------------------------------------------------------
// What the engine decided about a record, worded (the engine names no flag): the error stored in
// the record's result line, with the flags that change it.

const RATE_WAIT_HINT = 'Nothing was created for it. Raise --max-rate-wait, or run again later with --resume.';

/**
 * The error a record ends with. `checkIn`: where a person checks whether an envelope exists
 * (whereToCheckEnvelopes), for a record whose outcome is unknown.
 */
export function recordFailureError(failure: RecordFailure, checkIn: string): CliError {
  switch (failure.kind) {
    case 'unknown_outcome': {
      const { error } = failure;
      return new ServerError(
        `${error.message.replace(/\.$/, '')}; the envelope may have been created, so the record is not sent again by itself.`,
        {
          status: error.status,
          details: error.details,
          requestId: error.requestId,
          hint: `Check in ${checkIn} whether it exists, then run with --resume --retry-unknown if it does not.`,
        },
        OUTCOME_UNKNOWN,
      );
    }
    case 'turn_expired': {
      const { last, waitedMs, budgetMs } = failure;
      const said = last ? ` ${last.message}` : '';
      return new RateLimitedError(
        `Rate limited by the API for too long: this record waited ${secondsText(waitedMs)} for its turn and would wait past --max-rate-wait ${waitText(budgetMs)}.${said}`,
        { status: last?.status ?? null, hint: RATE_WAIT_HINT },
      );
    }
    case 'rate_wait_exceeded': {
      const { error, waitedMs, leftMs, budgetMs } = failure;
      return new RateLimitedError(
        `Rate limited by the API for too long: this record waited ${secondsText(waitedMs)} and the API asks for ${waitText(leftMs)} more, past --max-rate-wait ${waitText(budgetMs)}. ${error.message}`,
        { status: error.status, hint: RATE_WAIT_HINT },
      );
    }
  }
}
