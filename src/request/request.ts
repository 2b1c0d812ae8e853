// Building a create-envelope request from flags, data files and records: merge data as strings,
// every problem collected (not just the first), each naming where it came from.
import { resolve } from 'node:path';
import { CreateEnvelopeRequest, hotParser, MAX_EXPIRES_IN_DAYS } from '../api/schemas.js';
import type { Context } from '../context.js';
import { InterruptedError } from '../errors.js';
import { describeReadError } from '../fs/files.js';
import { decodeUtf8, MAX_INPUT_RECORD_BYTES, MAX_INPUT_RECORD_TEXT } from '../fs/input-bytes.js';
import { inputProblem, type Problem, usageProblem } from '../problems.js';
import { checkMergeData, describeFieldCheck, hasFieldProblems } from '../project/fields.js';
import type { ResolvedTemplate } from '../project/templates.js';
import { describeIssue, issuePath } from '../text/issues.js';
import { parseJsonText } from '../text/json.js';
import { isPlainObject } from '../text/plain-object.js';
import { loopbackOrigin } from '../transport/loopback.js';

/** Collected input problems, each naming its source. */
export type Problems = Problem[];

/**
 * Sets a merge field as an own property, whatever its name: `data['__proto__'] = value` would call
 * the prototype setter and drop the field. `__proto__` is a merge field like any other (a template
 * may have that tag), so every path (--data, --set, CSV columns, JSONL merge_data) keeps it.
 */
export function setMergeField(data: Record<string, string>, key: string, value: string): void {
  if (key === '__proto__') {
    Object.defineProperty(data, key, { value, enumerable: true, writable: true, configurable: true });
  } else data[key] = value;
}

/**
 * A merge-data value as the API wants it: strings as they are, numbers and booleans as their JSON
 * text (42 → "42", true → "true"). Null, arrays and objects have no string form: undefined.
 */
export function mergeValueToString(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' && Number.isFinite(value)) return JSON.stringify(value);
  if (typeof value === 'boolean') return String(value);
  return undefined;
}

function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : typeof value;
}

/** Converts a JSON object's values to strings; `where` names the source in problems. */
export function toMergeData(
  object: Record<string, unknown>,
  where: string,
  problems: Problems,
): Record<string, string> {
  const data: Record<string, string> = {};
  for (const [key, value] of Object.entries(object)) {
    const text = mergeValueToString(value);
    if (key === '') problems.push(inputProblem(where, 'a merge field has an empty name.'));
    else if (text === undefined) {
      problems.push(
        inputProblem(
          where,
          `merge field '${key}' is ${kindOf(value)}; values must be strings, numbers or booleans.`,
          { field: key },
        ),
      );
    } else setMergeField(data, key, text);
  }
  return data;
}

/** Parses text as a JSON object of merge data. */
function parseMergeDataText(text: string, where: string, problems: Problems): Record<string, string> {
  const parsed = parseJsonText(text);
  if (!parsed.ok) {
    problems.push(inputProblem(where, `invalid JSON at ${parsed.problem}.`));
    return {};
  }
  if (!isPlainObject(parsed.value)) {
    problems.push(
      inputProblem(where, `expected a JSON object of merge fields, found ${kindOf(parsed.value)}.`),
    );
    return {};
  }
  return toMergeData(parsed.value, where, problems);
}

/** Reads `--data` files in order (later files win); `-` is standard input, allowed once. */
export async function readMergeDataFiles(
  paths: readonly string[],
  ctx: Context,
  problems: Problems,
): Promise<Record<string, string>> {
  let merged: Record<string, string> = {};
  if (paths.filter((path) => path === '-').length > 1) {
    problems.push(inputProblem('--data -', 'standard input can be read only once.'));
    return merged;
  }
  for (const path of paths) {
    const where = path === '-' ? '--data - (standard input)' : `--data ${path}`;
    let read: Decoded;
    try {
      read =
        path === '-'
          ? checkStdinBytes(await ctx.stdin.readBytes('merge data'))
          : await readDataFile(resolve(ctx.cwd, path));
    } catch (error) {
      if (error instanceof InterruptedError) throw error; // Ctrl-C while reading standard input
      const why = describeReadError(error);
      problems.push(inputProblem(where, `cannot read the file (${why}).`));
      continue;
    }
    if (!read.ok) {
      problems.push(inputProblem(where, `${read.problem}.`));
      continue;
    }
    merged = { ...merged, ...parseMergeDataText(read.text, where, problems) };
  }
  return merged;
}

type Decoded = { ok: true; text: string } | { ok: false; problem: string };

const TOO_LARGE = `the file is larger than ${MAX_INPUT_RECORD_TEXT}, the most merge data may hold`;

/** A --data file as text: UTF-8, at most MAX_INPUT_RECORD_BYTES. */
async function readDataFile(path: string): Promise<Decoded> {
  // Loaded here, for a --data file: node:fs/promises (with readline) is not worth every create's start.
  const { open } = process.getBuiltinModule('node:fs/promises');
  const file = await open(path, 'r');
  try {
    if ((await file.stat()).size > MAX_INPUT_RECORD_BYTES) return { ok: false, problem: TOO_LARGE };
    // Read in pieces: a FIFO or /dev/stdin has no size, and must be bounded as it is read.
    const chunks: Buffer[] = [];
    let length = 0;
    for await (const chunk of file.createReadStream({ autoClose: false })) {
      length += (chunk as Buffer).length;
      if (length > MAX_INPUT_RECORD_BYTES) return { ok: false, problem: TOO_LARGE };
      chunks.push(chunk as Buffer);
    }
    return decodeUtf8(Buffer.concat(chunks));
  } finally {
    await file.close();
  }
}

/** Standard input as --data: the same checks as a file (UTF-8 with the byte offset, the size bound). */
function checkStdinBytes(bytes: Buffer): Decoded {
  if (bytes.length > MAX_INPUT_RECORD_BYTES) return { ok: false, problem: TOO_LARGE };
  return decodeUtf8(bytes);
}

/** `--set key=value` flags, split at the first '='. */
export function parseSetFlags(values: readonly string[], problems: Problems): Record<string, string> {
  const data: Record<string, string> = {};
  for (const raw of values) {
    const at = raw.indexOf('=');
    if (at <= 0) {
      problems.push(
        usageProblem(
          `--set '${raw}'`,
          at === 0
            ? "the field name before '=' is empty."
            : 'expected key=value, e.g. --set company="Analytical Engines".',
        ),
      );
      continue;
    }
    setMergeField(data, raw.slice(0, at), raw.slice(at + 1));
  }
  return data;
}

/** A positive whole number of days, from a flag or a CSV cell. */
export function parseExpiresInDays(
  raw: string | undefined,
  where: string,
  problems: Problems,
): number | undefined {
  if (raw === undefined || raw.trim() === '') return undefined;
  if (!/^\s*\d+\s*$/.test(raw) || Number(raw) < 1) {
    problems.push(usageProblem(where, `'${raw}' is not a positive whole number of days.`));
    return undefined;
  }
  return Number(raw);
}

/**
 * The longest expiry a server is known to take: esign sandbox's 365 days, where the base URL is
 * loopback (where the sandbox listens). The real API does not publish its bound: none is assumed.
 */
export function knownExpiryLimit(baseUrl: string | undefined): number | undefined {
  return loopbackOrigin(baseUrl) === undefined ? undefined : MAX_EXPIRES_IN_DAYS;
}

/** An expiry over the known bound (`limit`): a problem told before anything is sent, with what to give. */
export function checkExpiryLimit(
  days: number | undefined,
  limit: number | undefined,
  where: string,
  problems: Problems,
): void {
  if (days === undefined || limit === undefined || days <= limit) return;
  problems.push(
    usageProblem(
      where,
      `${days} days is more than the sandbox takes (at most ${limit}); it would refuse the request.`,
      {
        hint: `The base URL is a loopback address, where \`esign sandbox\` listens, and it allows 1 to ${limit} days: give ${limit} or less (the API's default is 30).`,
      },
    ),
  );
}

/** The request's fields as `envelope create` names them: its flags. */
export const FIELD_NAMES: Record<string, string> = {
  template_id: '--template',
  'signatory.name': '--name',
  'signatory.email': '--email',
  'signatory.phone': '--phone',
  expires_in_days: '--expires-in-days',
};

const parseRequest = hotParser(CreateEnvelopeRequest);

/**
 * Validates a request body with the wire schema. `names` maps wire paths to what the user wrote
 * (flag names for `create`, column or key names for `batch`). `reported`: wire fields whose problem
 * the caller found already (a template name that is not in force), which the schema leaves unsaid.
 */
export function validateRequest(
  body: unknown,
  problems: Problems,
  names: Record<string, string> = FIELD_NAMES,
  reported: readonly string[] = [],
): CreateEnvelopeRequest | undefined {
  // The inputs in the issues: "is required" needs them. Only an invalid body pays for that.
  const parsed = parseRequest(body, { reportInput: true });
  if (parsed.success) return reported.length > 0 ? undefined : withProtoField(body, parsed.data, problems);
  for (const issue of parsed.error.issues) {
    const path = issuePath(issue);
    if (reported.includes(path)) continue;
    const field = issue.path[0] === 'merge_data' && issue.path.length > 1 ? String(issue.path[1]) : undefined;
    const name = names[path] ?? (field === undefined ? path : `merge field '${field}'`);
    const problem = field === undefined ? usageProblem : inputProblem;
    problems.push(problem(name, describeIssue(issue), field === undefined ? {} : { field }));
  }
  return undefined;
}

/**
 * zod's records skip a `__proto__` key (a guard for plain-object outputs), so a validated request
 * has lost that merge field: put it back, in its place, checked as the schema would.
 */
function withProtoField(
  body: unknown,
  request: CreateEnvelopeRequest,
  problems: Problems,
): CreateEnvelopeRequest | undefined {
  const given = isPlainObject(body) ? body.merge_data : undefined;
  if (!isPlainObject(given) || !Object.hasOwn(given, '__proto__')) return request;
  const value: unknown = Object.getOwnPropertyDescriptor(given, '__proto__')?.value;
  if (typeof value !== 'string') {
    problems.push(inputProblem("merge field '__proto__'", 'must be a string', { field: '__proto__' }));
    return undefined;
  }
  const mergeData: Record<string, string> = {};
  for (const key of Object.keys(given)) {
    setMergeField(mergeData, key, key === '__proto__' ? value : (request.merge_data[key] as string));
  }
  return { ...request, merge_data: mergeData };
}

/** The request as sent: the template id in upper case (a copy only when that changes it). */
export function normalizeRequest(body: CreateEnvelopeRequest): CreateEnvelopeRequest {
  const templateId = body.template_id.toUpperCase();
  return templateId === body.template_id ? body : { ...body, template_id: templateId };
}

/**
 * The merge data against the template's declared fields (none declared: nothing to check).
 * `toBeAsked`: required fields the person will be asked for, not missing yet.
 */
export function checkTemplateFields(
  template: ResolvedTemplate | undefined,
  mergeData: Readonly<Record<string, string>>,
  problems: Problems,
  toBeAsked: readonly string[] = [],
): void {
  const found = checkMergeData(template?.fields, mergeData);
  // A field told already (a null value, an array) is not also "missing": one problem, told once.
  const told = fieldsTold(problems);
  const check = found && {
    ...found,
    missing: found.missing.filter((name) => !toBeAsked.includes(name) && !told.has(name)),
  };
  if (!template?.fields || !hasFieldProblems(check)) return;
  const label = { label: template.label ?? template.id, fields: template.fields };
  for (const message of describeFieldCheck(check, label)) problems.push(inputProblem('', message));
}

/** The merge fields these problems are about already (a value that is null, an array, an object). */
export function fieldsTold(problems: Problems): Set<string> {
  return new Set(problems.flatMap((problem) => (problem.field === undefined ? [] : [problem.field])));
}
