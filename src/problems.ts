// An input problem is a value until it is shown: where it is (the source as the person named it, the
// line of a batch's records, the merge field), what is wrong, and what to do. Every check collects
// them (flags, data files, records, template fields, tool arguments); the command that reported
// them chooses how they are shown, and the error they make is chosen from their kinds here, once.
import { type CliError, InputError, UsageError } from './errors.js';

export interface Problem {
  /**
   * What the problem is in, as the person wrote it: a flag (`--email`), a file (`--data a.json`), a
   * record's key or column (`signatory_email`), a tool's argument (`merge_data`). Empty when the
   * message says it all (a problem of the whole input).
   */
  source: string;
  /** The line of the input the problem is on (a batch's records). */
  line?: number;
  /** The merge field the problem is about, when it is about one. */
  field?: string;
  /** What is wrong, as a sentence without its source (its own final full stop, when it has one). */
  message: string;
  hint?: string;
  /** Whether it is a problem with the input's data (merge data, a data file), or with how the command was called. */
  kind: 'input' | 'usage';
}

/** A problem with how the command was called (a flag, an argument), from `source`. */
export function usageProblem(source: string, message: string, more: Partial<Problem> = {}): Problem {
  return { source, message, kind: 'usage', ...more };
}

/** A problem with the input's data (merge data, a data file), from `source`. */
export function inputProblem(source: string, message: string, more: Partial<Problem> = {}): Problem {
  return { source, message, kind: 'input', ...more };
}

/** "line 3: signatory_email: must be an email address": the problem as a line of a list. */
export function problemText(problem: Problem): string {
  const line = problem.line === undefined ? '' : `line ${problem.line}: `;
  const source = problem.source === '' ? '' : `${problem.source}: `;
  return `${line}${source}${problem.message}`;
}

/** The problem as a sentence of its own: with its full stop. */
export function problemSentence(problem: Problem): string {
  const text = problemText(problem);
  // A problem that ends its own sentence ("… Did you mean 'company'?") gets no second stop.
  return /[.?!]$/.test(text) ? text : `${text}.`;
}

/**
 * One error for a request's problems (nothing was sent): invalid input when every one is about the
 * input's data, else a usage error. One problem is the message; more are its details.
 */
export function problemsError(problems: readonly Problem[], hint: string): CliError {
  const ErrorClass = problems.every((problem) => problem.kind === 'input') ? InputError : UsageError;
  const [only] = problems;
  if (problems.length === 1 && only)
    return new ErrorClass(problemSentence(only), { hint: only.hint ?? hint });
  return new ErrorClass(`${problems.length} problems with the input; nothing was sent:`, {
    details: problems.map(problemSentence),
    hint,
  });
}
