// Every error a user can meet: a class, an exit code from the contract, a plain message and a hint.
// Commands throw these; only main turns them into output and an exit code.

export const ExitCode = {
  ok: 0,
  internal: 1,
  usage: 2,
  unauthenticated: 3,
  forbidden: 4,
  rejected: 5,
  network: 6,
  server: 7,
  batchIncomplete: 8,
  outputFailed: 9,
  interrupted: 130,
} as const;

export type ExitCodeValue = (typeof ExitCode)[keyof typeof ExitCode];

/**
 * The code of an error after which the envelope may exist (a request that left and got no answer, an
 * answer that is not the envelope): never sent again without checking.
 */
export const OUTCOME_UNKNOWN = 'outcome_unknown';

export interface CliErrorOptions {
  hint?: string;
  /** HTTP status of the answer that caused the error, or null when there was none. */
  status?: number | null;
  /** Extra lines shown under the message (per-field errors, a list of bad records). */
  details?: string[];
  cause?: unknown;
  /** The request id of the exchange (the server's, else the one esign sent), for the service's support. */
  requestId?: string | undefined;
}

export class CliError extends Error {
  readonly hint: string | undefined;
  readonly status: number | null;
  readonly details: string[];
  readonly requestId: string | undefined;

  constructor(
    message: string,
    readonly exitCode: ExitCodeValue,
    /** A stable, machine-readable kind for `--json` errors. */
    readonly code: string,
    options: CliErrorOptions = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.hint = options.hint;
    this.status = options.status ?? null;
    this.details = options.details ?? [];
    this.requestId = options.requestId;
  }
}

/** A flag, argument or input file is wrong; nothing was sent. */
export class UsageError extends CliError {
  constructor(message: string, options?: CliErrorOptions) {
    super(message, ExitCode.usage, 'usage', options);
  }
}

/** The input (merge data, a batch file) is invalid; nothing was sent. */
export class InputError extends CliError {
  constructor(message: string, options?: CliErrorOptions) {
    super(message, ExitCode.usage, 'invalid_input', options);
  }
}

/** A setting the command needs is missing (base URL); nothing was sent. */
export class MissingSettingError extends CliError {
  constructor(message: string, options?: CliErrorOptions) {
    super(message, ExitCode.usage, 'missing_setting', options);
  }
}

/** No token is available, or the API answered 401. */
export class NotAuthenticatedError extends CliError {
  constructor(message: string, options?: CliErrorOptions) {
    super(message, ExitCode.unauthenticated, 'unauthenticated', options);
  }
}

/** The API answered 403: the resource belongs to another organisation. */
export class ForbiddenError extends CliError {
  constructor(message: string, options?: CliErrorOptions) {
    super(message, ExitCode.forbidden, 'forbidden', options);
  }
}

/** The API rejected the request with another 4xx answer. */
export class ApiRejectedError extends CliError {
  constructor(message: string, options?: CliErrorOptions, code = 'rejected') {
    super(message, ExitCode.rejected, code, options);
  }
}

/** 429 answers kept coming after the allowed retries. */
export class RateLimitedError extends ApiRejectedError {
  constructor(message: string, options?: CliErrorOptions) {
    super(message, options, 'rate_limited');
  }
}

/**
 * The request did not complete on the network. `sent` says whether it may have reached the
 * server: when it did, the outcome is unknown and the request must not be repeated silently.
 */
export class NetworkError extends CliError {
  constructor(
    message: string,
    readonly sent: boolean,
    options?: CliErrorOptions,
    code = sent ? OUTCOME_UNKNOWN : 'network',
  ) {
    super(message, ExitCode.network, code, options);
  }
}

/** The server failed (5xx) or answered with something that does not match the spec. */
export class ServerError extends CliError {
  constructor(message: string, options?: CliErrorOptions, code = 'server_error') {
    super(message, ExitCode.server, code, options);
  }
}

export class BadResponseError extends ServerError {
  constructor(message: string, options?: CliErrorOptions) {
    super(message, options, 'bad_response');
  }
}

/** The config file exists but cannot be read as esign's config; it is never replaced silently. */
export class ConfigFileError extends CliError {
  constructor(message: string, options?: CliErrorOptions) {
    super(message, ExitCode.internal, 'config_file', options);
  }
}

export class InterruptedError extends CliError {
  /** A request had left when the interrupt came: the envelope may exist. */
  readonly mayHaveSent: boolean;

  constructor(
    message = 'Interrupted.',
    options?: CliErrorOptions & { mayHaveSent?: boolean },
    /** The signal that interrupted, when one did: SIGINT is Ctrl-C; SIGTERM comes from a CI runner or `kill`. */
    readonly signalName?: NodeJS.Signals,
  ) {
    super(message, ExitCode.interrupted, 'interrupted', options);
    this.mayHaveSent = options?.mayHaveSent === true;
  }
}

/** What esign had to say could not be written (a closed pipe, a full disk): the result is lost. */
export class OutputFailedError extends CliError {
  constructor(error: NodeJS.ErrnoException, what = 'standard output', options: CliErrorOptions = {}) {
    super(
      `Could not write to ${what}: ${describeWriteError(error)}.`,
      ExitCode.outputFailed,
      'output_failed',
      {
        cause: error,
        ...options,
      },
    );
  }
}

/** "the reader closed the pipe (EPIPE)", "the disk is full (ENOSPC)", … */
function describeWriteError(error: NodeJS.ErrnoException): string {
  const code = error.code ?? 'unknown error';
  if (code === 'EPIPE') return 'the reader closed the pipe (EPIPE)';
  if (code === 'ENOSPC') return 'the disk is full (ENOSPC)';
  if (code === 'EDQUOT') return 'the disk quota is used up (EDQUOT)';
  if (code === 'EIO') return 'an input/output error (EIO)';
  if (code === 'EFBIG') return 'the file is too large (EFBIG)';
  return `${error.message}`;
}

/** The message shown for any error: a CliError's own, or one that says an unexpected error happened. */
export function messageOf(error: unknown): string {
  return error instanceof CliError
    ? error.message
    : `Unexpected internal error: ${(error as Error)?.message ?? String(error)}`;
}

/** The hint shown for any error: a CliError's own, or to run again with --verbose. */
export function hintOf(error: unknown): string | undefined {
  return error instanceof CliError
    ? error.hint
    : 'Run again with --verbose for details, and report it if it persists.';
}

/**
 * What an error says to a program: `code`, `message`, `status`, and `hint`, `details` and
 * `request_id` when it has them. The `error` object of `--json`, and the error of an `esign mcp`
 * tool call, are built from it.
 */
export function errorBody(error: unknown): Record<string, unknown> {
  const known = error instanceof CliError;
  const body: Record<string, unknown> = {
    code: known ? error.code : 'internal',
    message: messageOf(error),
    status: known ? error.status : null,
  };
  const hint = hintOf(error);
  if (hint) body.hint = hint;
  if (known && error.details.length > 0) body.details = error.details;
  const requestId = (error as { requestId?: unknown }).requestId;
  if (typeof requestId === 'string') body.request_id = requestId;
  return body;
}
