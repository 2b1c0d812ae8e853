// The results file of a batch (--output), on the command's side: the real file its name leads to
// (one lock for two names of one file), this run's claim on it, and the refusals that keep earlier
// results and other people's files safe, worded with the flags that change them. The engine reads
// and writes the file (src/batch/); it names no flag.
import { existsSync, lstatSync, readlinkSync, realpathSync, statSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import {
  type PreviousResults,
  type ResumeRefusal,
  ResumeRefusedError,
} from '../../batch/previous-results.js';
import { loadPrevious } from '../../batch/resume.js';
import type { Env } from '../../context.js';
import { UsageError } from '../../errors.js';
import { describeReadError, isDiskFull } from '../../fs/files.js';
import { acquireLock, busyLockAdvice, heldWhere, lockHeld, lockLost, releaseLock } from '../../fs/lock.js';
import { currentUser, notOwnReason, ownedByUser } from '../../fs/ownership.js';
import { escapeControl } from '../../text/terminal-text.js';

/**
 * The file --output names, through any symbolic links, so that two names of one file share one lock
 * and one journal. A link to a file not written yet is followed too (to the name it will have, its
 * folder's real path); a missing file that is no link: its folder's real path. `shown` is the path as
 * the user gave it, for the error about a loop of links.
 */
export function realOutputPath(output: string, shown: string = output): string {
  const followed = new Set<string>();
  let path = output;
  for (;;) {
    const real = existingRealPath(path, shown);
    if (real !== undefined) return real;
    const target = linkTarget(path);
    if (target === undefined) return inRealFolder(path);
    if (followed.has(path)) throw linkLoop(shown);
    followed.add(path);
    // A relative target is relative to the folder of the link, as the system reads it.
    path = resolve(dirname(path), target);
  }
}

/** The real path of a file that exists; undefined when it does not (a dangling link included). */
function existingRealPath(path: string, shown: string): string | undefined {
  try {
    return realpathSync(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ELOOP') throw linkLoop(shown);
    return undefined;
  }
}

/** Where a symbolic link points, as written in it; undefined when `path` is no link. */
function linkTarget(path: string): string | undefined {
  try {
    return readlinkSync(path);
  } catch {
    return undefined;
  }
}

/** A file not there yet, in its folder's real path (the path as it is when that cannot be read). */
function inRealFolder(path: string): string {
  try {
    return join(realpathSync(dirname(path)), basename(path));
  } catch {
    return path;
  }
}

function linkLoop(shown: string): UsageError {
  return new UsageError(`--output ${shown} is a loop of symbolic links: it never reaches a file.`, {
    hint: 'Point --output at a file, or fix the links.',
  });
}

/**
 * With --resume: what the earlier runs into --output did (loadPrevious), or the usage error that
 * says why they cannot be resumed. Nothing is written before a refusal.
 */
export async function loadEarlierResults(
  output: string,
  options: { write?: boolean; baseUrl?: string | undefined; shownAs: string; env?: Env },
): Promise<PreviousResults> {
  try {
    return await loadPrevious(output, options);
  } catch (error) {
    if (error instanceof ResumeRefusedError) throw resumeRefusedError(error.refusal, options.shownAs);
    throw error;
  }
}

/** Why the earlier results in --output (`shownAs`, as the user named it) cannot be resumed. */
function resumeRefusedError(refusal: ResumeRefusal, shownAs: string): UsageError {
  if (refusal.kind === 'not_a_result_line') {
    return new UsageError(
      `--output ${refusal.path}: line ${refusal.line} is not a result line of esign (${refusal.problem}).`,
      { hint: 'Resume needs the results file of an earlier run, unchanged.' },
    );
  }
  const earlier = refusal.recorded.map((url) => escapeControl(url)).join(' and ');
  return new UsageError(
    `--output ${shownAs} holds results of envelopes created at ${earlier}; this run would send to ${escapeControl(refusal.baseUrl)}. Nothing was sent.`,
    {
      hint: `Resume with --base-url ${escapeControl(refusal.recorded[0] as string)} (or the profile that uses it), or write to another --output to start a separate run there.`,
    },
  );
}

/** A run into an --output file: the file as the user named it, and whether the run resumes an earlier one. */
export interface OutputRun {
  shownAs: string;
  resume: boolean;
  env: Env;
}

/**
 * --output in a folder others can write (a shared /tmp, a group's folder): the results file and its
 * journal hold signing URLs, which are bearer links, so esign writes them only to files of the
 * user's own. Refused before anything is sent: a results file or journal that is there and is
 * another user's, or that others can write, or a journal that is a symbolic link; and an --output
 * that is a symbolic link another user made. `given`: the path as given; `output`: its real path.
 */
export function refuseForeignFiles(given: string, output: string, run: OutputRun): void {
  const user = currentUser(run.env);
  const link = statOrUndefined(given);
  if (user && link?.isSymbolicLink() && !ownedByUser(link.uid, user)) {
    throw foreignFile(`--output ${run.shownAs}`, `is a symbolic link made by another user (uid ${link.uid})`);
  }
  for (const [path, name] of [
    [output, `--output ${run.shownAs}`],
    [`${output}.pending`, `The journal of --output ${run.shownAs} (${output}.pending)`],
  ] as const) {
    const stats = statOrUndefined(path);
    const reason = stats && notOwnReason(stats, user);
    if (reason !== undefined) throw foreignFile(name, reason);
  }
}

function statOrUndefined(path: string) {
  try {
    return lstatSync(path);
  } catch {
    return undefined;
  }
}

function foreignFile(name: string, reason: string): UsageError {
  return new UsageError(
    `${name} ${reason}: esign writes signing URLs only to a file of your own that nobody else can write. Nothing was sent.`,
    {
      hint: 'Write --output to a folder of your own (or remove that file if it is yours to remove), then run again.',
    },
  );
}

/**
 * Refuses a run without --resume on an --output that holds an earlier run's results or intents: it
 * would overwrite them. The run asks under its lock, and --dry-run asks too, so that it predicts the
 * refusal.
 */
export function refuseOverwrite(output: string, run: OutputRun): void {
  if (run.resume) return;
  const holds = (file: string) => existsSync(file) && statSync(file).size > 0;
  if (holds(`${output}.pending`)) {
    throw new UsageError(`An earlier run into --output ${run.shownAs} did not finish.`, {
      hint: 'Add --resume to finish it: requests it may have sent are reported, never sent again by themselves.',
    });
  }
  if (holds(output)) {
    throw new UsageError(`--output ${run.shownAs} already holds results.`, {
      hint: 'Add --resume to continue that run without sending anyone a second envelope, or choose another file.',
    });
  }
}

/** This run's hold on --output: `lost` aborts if another run took it over meanwhile. */
export interface OutputClaim {
  lost: AbortSignal;
  /** Whether the run holds --output at this moment (fs/lock.ts's lockHeld): asked before each request. */
  held(): boolean | Promise<boolean>;
  release(): Promise<void>;
}

/**
 * Makes this run the only one on `output` (a lock beside it, until the run ends), and makes sure no
 * earlier run's results or intents are overwritten without --resume.
 */
export async function claimOutput(
  files: { given: string; path: string },
  run: OutputRun,
): Promise<OutputClaim> {
  const output = files.path;
  const lockPath = `${output}.lock`;
  await acquireLock(lockPath, {
    busy: (owner) =>
      new UsageError(
        `Another esign batch (process ${owner.pid}) is writing to --output ${run.shownAs}: a run is in progress${heldWhere(owner)}. Nothing was sent.`,
        {
          hint: `Wait for it to finish (or stop it), then run this command again; with --resume it continues where that run ends. ${busyLockAdvice(lockPath)}`,
        },
      ),
    failed: (error) =>
      new UsageError(`Cannot create ${lockPath}: ${describeReadError(error)}. Nothing was sent.`, {
        hint: isDiskFull(error)
          ? 'Free some space on the disk that holds --output (the run needs room for its results), or write --output to another disk.'
          : 'The folder of --output must be writable.',
      }),
  });
  try {
    refuseForeignFiles(files.given, output, run);
    refuseOverwrite(output, run);
  } catch (error) {
    await releaseLock(lockPath);
    throw error;
  }
  return {
    lost: lockLost(lockPath) ?? new AbortController().signal,
    held: () => lockHeld(lockPath),
    release: () => releaseLock(lockPath),
  };
}
