// How old a stored token is, and the reminder to rotate it. Tokens never expire and the service
// advises rotating them regularly: `esign login` records when it stored a token, `esign status`
// shows its age, and a command that sends with a token stored 90 days ago or more says so once on
// stderr, at most once a day (a file in the config folder remembers when), never under --json, -q
// or CI, and never once `esign config set token_age_reminder false` said no.
import { closeSync, constants, ftruncateSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import type { Context } from '../context.js';
import {
  MAX_LOCK_BYTES,
  NotRegularFileError,
  openRegularFileSync,
  readRegularFileSync,
} from '../fs/regular-file.js';
import { inCi } from '../io/terminal.js';
import { PREFERENCE_DEFAULTS, storedPreference } from './preferences.js';
import { profileFlag, type Settings } from './settings.js';

const DAY_MS = 24 * 60 * 60 * 1000;
/** A token this many days old is due for rotation. */
export const ROTATE_AFTER_DAYS = 90;
/** The file that says when the reminder was last given (an ISO 8601 time). */
const REMINDED_FILE = 'token-age-reminded';

/** Whole days from `storedAt` (ISO 8601) to `now`; undefined when it is not a time. */
export function tokenAgeDays(storedAt: string, now: Date): number | undefined {
  const at = Date.parse(storedAt);
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, Math.floor((now.getTime() - at) / DAY_MS));
}

/** "today", "1 day ago", "95 days ago". */
export function ageText(days: number): string {
  if (days === 0) return 'today';
  return days === 1 ? '1 day ago' : `${days} days ago`;
}

/** The reminder on stderr, when it is due (the caller says a person reads stderr: not --json or -q). */
export function remindOfTokenAge(settings: Settings, ctx: Context): void {
  const days =
    settings.tokenStoredAt === undefined ? undefined : tokenAgeDays(settings.tokenStoredAt, ctx.now());
  if (days === undefined || days < ROTATE_AFTER_DAYS) return;
  if (inCi(ctx.env) || ctx.env.GITHUB_ACTIONS === 'true') return;
  const reminder = storedPreference(settings.configDir, 'token_age_reminder');
  if (!(reminder ?? PREFERENCE_DEFAULTS.token_age_reminder)) return;
  if (!markReminded(settings.configDir, ctx.now())) return;
  const profile = settings.profile.value;
  ctx.stderr.write(
    `note: the token of profile '${profile}' was stored ${ageText(days)}; the service advises rotating tokens regularly. Create a new one in the dashboard (Settings → API Tokens), store it with \`esign login${profileFlag(profile)}\`, then revoke the old one. (At most once a day; \`esign config set token_age_reminder false\` turns this off.)\n`,
  );
}

/**
 * Records that the reminder is given now, unless it was given less than a day ago. False: not due,
 * or the folder cannot be written (then no reminder: it could not be kept to once a day).
 */
function markReminded(dir: string, now: Date): boolean {
  const path = join(dir, REMINDED_FILE);
  try {
    const last = Date.parse(readRegularFileSync(path, MAX_LOCK_BYTES).text.trim());
    const since = now.getTime() - last;
    if (since >= 0 && since < DAY_MS) return false;
  } catch (error) {
    // Never reminded; or something else than a regular file there (a named pipe): no reminder.
    if (error instanceof NotRegularFileError) return false;
  }
  try {
    // Never a wait on a named pipe put there: refused at the open, emptied once known to be a file.
    const { fd } = openRegularFileSync(path, constants.O_WRONLY | constants.O_CREAT, { mode: 0o600 });
    try {
      ftruncateSync(fd, 0);
      writeSync(fd, `${now.toISOString()}\n`);
    } finally {
      closeSync(fd);
    }
    return true;
  } catch {
    return false;
  }
}
