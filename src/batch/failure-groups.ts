// Which failed or unknown records failed "the same way", decided once: the stderr listing, the
// GitHub annotations, the job summary and the rule that stops a batch failing the same way every
// time all group records by sameErrorKey, and gather them here.
import type { CliError } from '../errors.js';
import { escapeControl } from '../text/terminal-text.js';

export type FailedState = 'failed' | 'unknown';

/** Records of one error: the first one's message and hint, the first lines, and how many in all. */
export interface FailureGroup {
  /** sameErrorKey of its error. */
  key: string;
  state: FailedState;
  code: string;
  status: number | null;
  /** The first record's message as stored (with its request id). */
  message: string;
  /** The same without the request id, which differs from record to record. */
  sameMessage: string;
  hint: string | undefined;
  /** The first MAX_LINES_PER_GROUP lines, in the order they settled. */
  lines: number[];
  count: number;
}

/** Lines kept (and listed) for each error. */
export const MAX_LINES_PER_GROUP = 10;
/** Distinct errors kept; records of any other error are only counted. */
export const MAX_ERROR_GROUPS = 10;

/**
 * The message without the request id the API (or esign) gave this one request: two records
 * refused for the same reason differ only there.
 */
export function messageWithoutRequestId(error: Pick<CliError, 'message' | 'requestId'>): string {
  if (!error.requestId) return error.message;
  const shown = escapeControl(error.requestId);
  return error.message.replace(` (request id ${shown})`, '').replace(`, request id ${shown}`, '');
}

/**
 * Two errors are the same when their code, HTTP status and message (less the request id) are. A
 * record that waited past --max-rate-wait is worded with its own wait times: those are one error,
 * told apart by their hint.
 */
export function sameErrorKey(error: Pick<CliError, 'code' | 'status' | 'message' | 'requestId' | 'hint'>) {
  const said = error.code === 'rate_limited' ? `hint:${error.hint ?? ''}` : messageWithoutRequestId(error);
  return JSON.stringify([error.code, error.status, said]);
}

/** Gathers failed and unknown records by state and sameErrorKey. */
export class FailureGroups {
  readonly #groups = new Map<string, FailureGroup>();
  /** Records of errors past MAX_ERROR_GROUPS. */
  #others = 0;

  add(state: FailedState, line: number, error: CliError): void {
    const key = sameErrorKey(error);
    const group = this.#groups.get(`${state}:${key}`);
    if (group) {
      group.count++;
      if (group.lines.length < MAX_LINES_PER_GROUP) group.lines.push(line);
      return;
    }
    if (this.#groups.size >= MAX_ERROR_GROUPS) {
      this.#others++;
      return;
    }
    this.#groups.set(`${state}:${key}`, {
      key,
      state,
      code: error.code,
      status: error.status,
      message: error.message,
      sameMessage: messageWithoutRequestId(error),
      hint: error.hint,
      lines: [line],
      count: 1,
    });
  }

  /** The groups, the largest first (the first seen first among equals). */
  groups(): FailureGroup[] {
    return [...this.#groups.values()].sort((a, b) => b.count - a.count);
  }

  /** Records of errors not kept as groups. */
  others(): number {
    return this.#others;
  }
}

/** "lines 3, 4, 9" (sorted), then "and N more" for the group's records past those listed. */
export function groupLinesText(group: FailureGroup): string {
  const lines = [...group.lines].sort((a, b) => a - b);
  const more = group.count - lines.length;
  const listed = `${lines.length === 1 ? 'line' : 'lines'} ${lines.join(', ')}`;
  return more > 0 ? `${listed} and ${more} more` : listed;
}
