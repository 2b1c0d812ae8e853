// The batch command a user is told to run next (to resume after an interrupt or a failed output,
// to send unknown records again), built from the run's parsed options: pasted as printed into a
// POSIX shell, it sends to the same API (base URL, profile), as fast and as patiently (rate,
// concurrency, retries, wait budget, timeout, --keep-going), the same records (file, format, template, data,
// set, expiry, duplicates) and writes to the same --output. Every value is printed, defaults too:
// a resume by a later version whose defaults changed still runs as the first half did. The token
// is never a flag, so never in it.
import { shellQuote } from '../../text/shell.js';
import { durationText, type Rate, rateText } from '../../text/units.js';

export interface NextCommandOptions {
  file: string;
  format?: string | undefined;
  template?: string | undefined;
  data?: readonly string[] | undefined;
  set?: readonly string[] | undefined;
  expiresInDays?: string | undefined;
  profile?: string | undefined;
  /** The base URL the run sent to, wherever it came from (flag, environment, profile). */
  baseUrl?: string | undefined;
  timeout?: string | undefined;
  ciOutput?: string | undefined;
  concurrency?: number | undefined;
  maxRetries?: number | undefined;
  rate?: Rate | undefined;
  maxRateWait?: number | undefined;
  allowDuplicates?: boolean | undefined;
  keepGoing?: boolean | undefined;
  output?: string | undefined;
}

export type NextStep = '--resume' | '--retry-unknown';

/** `--flag value`, or `--flag=value` when the value starts with a dash (never read as a flag). */
function flag(name: string, value: string): string[] {
  return value.startsWith('-') && value !== '-' ? [`${name}=${value}`] : [name, value];
}

function optional(name: string, value: string | undefined): string[] {
  return value === undefined ? [] : flag(name, value);
}

/** The flags that choose where records go and how fast, in the order the help lists them. */
function sendingFlags(options: NextCommandOptions): string[] {
  return [
    ...optional('--profile', options.profile),
    ...optional('--base-url', options.baseUrl),
    ...optional('--timeout', options.timeout),
    ...optional('--ci-output', options.ciOutput),
    ...optional('--concurrency', options.concurrency?.toString()),
    ...optional('--max-retries', options.maxRetries?.toString()),
    ...optional('--rate', options.rate && rateText(options.rate)),
    ...optional(
      '--max-rate-wait',
      options.maxRateWait === undefined ? undefined : durationText(options.maxRateWait),
    ),
  ];
}

/** The flags that choose what each record's request holds. */
function recordFlags(options: NextCommandOptions): string[] {
  return [
    ...optional('--format', options.format),
    ...optional('--template', options.template),
    ...(options.data ?? []).flatMap((data) => flag('--data', data)),
    ...(options.set ?? []).flatMap((set) => flag('--set', set)),
    ...optional('--expires-in-days', options.expiresInDays),
    ...(options.allowDuplicates ? ['--allow-duplicates'] : []),
    ...(options.keepGoing ? ['--keep-going'] : []),
  ];
}

/** The words of the command, unquoted: `esign envelope batch … --resume`. */
function nextCommandWords(options: NextCommandOptions, steps: readonly NextStep[] = ['--resume']): string[] {
  // A file named like a flag goes after `--`, where nothing is read as one.
  const dashed = options.file.startsWith('-') && options.file !== '-';
  return [
    'esign',
    'envelope',
    'batch',
    ...(dashed ? [] : [options.file]),
    ...recordFlags(options),
    ...sendingFlags(options),
    ...optional('--output', options.output),
    ...steps,
    ...(dashed ? ['--', options.file] : []),
  ];
}

/** The command as the user can paste it into a POSIX shell. */
export function nextCommand(options: NextCommandOptions, steps: readonly NextStep[] = ['--resume']): string {
  return nextCommandWords(options, steps).map(shellQuote).join(' ');
}
