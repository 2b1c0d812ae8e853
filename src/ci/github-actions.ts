// GitHub Actions, recognised: step outputs in $GITHUB_OUTPUT, `::add-mask::` for bearer links, and
// `::error` annotations. The formats follow the runner's own source (actions/runner):
// - workflow commands are read from both stdout and stderr (Handlers/ScriptHandler.cs hands each
//   stream to an OutputManager), so they go to stderr here and stdout stays pure data; they go out
//   through writeCommands, as every other text on both streams is kept from acting as one;
// - command data escapes % \r \n, properties also : and , (Runner.Common/ActionCommand.cs);
// - $GITHUB_OUTPUT takes `name=value` lines, or `name<<DELIMITER` … `DELIMITER` for values with line
//   breaks (FileCommandManager.cs, EnvFileKeyValuePairs).
import { appendFileSync } from 'node:fs';
import type { Env, OutputStream } from '../context.js';
import { RUNNER_HASH_BRACKET } from '../text/runner-commands.js';

/**
 * Whether to speak to GitHub Actions: `--ci-output` over ESIGN_CI; `auto` (the default) follows
 * GITHUB_ACTIONS=true, `github` forces it, `none` turns it off.
 */
export function githubActionsEnabled(flag: string | undefined, env: Env): boolean {
  const chosen = flag ?? (env.ESIGN_CI?.trim().toLowerCase() || 'auto');
  if (chosen === 'none') return false;
  if (chosen === 'github') return true;
  return env.GITHUB_ACTIONS === 'true';
}

/** Workflow-command data: % CR LF escaped, as the runner unescapes them. */
export function escapeData(value: string): string {
  return value.replaceAll('%', '%25').replaceAll('\r', '%0D').replaceAll('\n', '%0A');
}

/** A workflow-command property value: also : and , escaped. */
function escapeProperty(value: string): string {
  return escapeData(value).replaceAll(':', '%3A').replaceAll(',', '%2C');
}

/** `::add-mask::value`: from this line on, the runner shows the value as *** in the log. */
export function maskCommand(value: string): string {
  return `::add-mask::${escapeData(value)}\n`;
}

/** `::error title=…::message`: an annotation on the run's summary page, beside the log line. */
export function errorAnnotation(title: string, message: string): string {
  return `::error title=${escapeProperty(title)}::${escapeData(message)}\n`;
}

/** `::warning title=…::message`: a warning annotation, as errorAnnotation. */
export function warningAnnotation(title: string, message: string): string {
  return `::warning title=${escapeProperty(title)}::${escapeData(message)}\n`;
}

/**
 * The lines that set step outputs in $GITHUB_OUTPUT: `name=value`, or a heredoc with a random
 * delimiter (one the value does not contain) when the value has a line break.
 */
export function formatOutputs(
  outputs: Readonly<Record<string, string>>,
  // node:crypto is loaded here, on use: main imports this module, and every command (--help too)
  // paid for loading it at start-up.
  delimiter: () => string = () => `ghadelimiter_${process.getBuiltinModule('node:crypto').randomUUID()}`,
): string {
  let text = '';
  for (const [name, value] of Object.entries(outputs)) {
    if (!/[\r\n]/.test(value)) {
      text += `${name}=${value}\n`;
      continue;
    }
    let marker = delimiter();
    while (value.includes(marker)) marker = delimiter();
    text += `${name}<<${marker}\n${value}\n${marker}\n`;
  }
  return text;
}

/** Where the runner wants step outputs and the job summary, when it says. */
export interface GithubFiles {
  output: string | undefined;
  stepSummary: string | undefined;
}

export function githubFiles(env: Env): GithubFiles {
  return { output: env.GITHUB_OUTPUT || undefined, stepSummary: env.GITHUB_STEP_SUMMARY || undefined };
}

/** Appends to a runner file (other steps' commands share it); throws the file system's error. */
export function appendRunnerFile(path: string, text: string): void {
  appendFileSync(path, text, { encoding: 'utf8' });
}

/**
 * Writes workflow commands (whole lines) as esign's own: the stream keeps every other text from
 * acting as one (src/text/runner-commands.ts), so a command written with `write` is made inert.
 */
export function writeCommands(stream: OutputStream, lines: string): void {
  if (stream.command) stream.command(lines);
  else stream.write(lines);
}

/**
 * Writes the mask for each value to `stderr`, before anything that holds one is printed. A value
 * is masked as it is written elsewhere: redacted already (the stream's redaction would come after
 * the escaping here).
 */
export function maskValues(stderr: OutputStream, values: readonly string[]): void {
  const lines = values.filter((value) => value.trim() !== '').map(maskCommand);
  if (lines.length > 0) writeCommands(stderr, lines.join(''));
}

/**
 * A line of JSON made inert for the runner, with the same meaning: the runner treats `##[name]` as
 * a workflow command anywhere in a line (ActionCommand.TryParse), so a record's value echoed in an
 * API error could say `##[stop-commands]…` and switch off the masks that follow. In JSON, `##[` can
 * only stand inside a string, where `[` may be written `\u005b`: JSON.parse reads the same value.
 * The runner's search skips ignorable characters (`#\u00ad#[` counts), so this does too: were the
 * stream's own guard left to catch one, it would write `\x5b` into the string, which is not JSON.
 * (The `::name::` form counts only at the start of a line, never the case for a JSON object.)
 */
export function inertJsonLine(json: string): string {
  return json.includes('#') ? json.replace(RUNNER_HASH_BRACKET, '$1\\u005b') : json;
}
