// What tells one process from another beyond its id, which the system hands out again: the boot it
// runs in and the moment it started in that boot, as rushstack's LockFile records them. Both come
// from /proc, so only Linux knows them; elsewhere they are undefined and a lock falls back to asking
// whether its process id is running, which a reused id fools (a reboot on macOS or Windows, say).
import { readFileSync, readlinkSync } from 'node:fs';

function readProc(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined; // not Linux, /proc not mounted, or the process is gone
  }
}

let bootId: string | undefined | null = null;

/** The id of the boot this machine is running, or undefined where it cannot be read. */
export function currentBootId(): string | undefined {
  if (bootId === null) bootId = readProc('/proc/sys/kernel/random/boot_id')?.trim() || undefined;
  return bootId;
}

/**
 * Field 22 of a /proc/<pid>/stat text: when the process started, in clock ticks since boot. The
 * name (field 2) is in parentheses and may itself hold spaces and parentheses, so fields are
 * counted from the last ')'.
 */
export function startTimeFromStat(stat: string): string | undefined {
  const close = stat.lastIndexOf(')');
  if (close === -1) return undefined;
  const fields = stat
    .slice(close + 1)
    .trim()
    .split(/\s+/); // fields[0] is field 3
  const value = fields[19];
  return value !== undefined && /^\d+$/.test(value) ? value : undefined;
}

/** When process `pid` started (clock ticks since boot), or undefined when that cannot be known. */
export function processStartTime(pid: number): string | undefined {
  const stat = readProc(`/proc/${pid}/stat`);
  return stat === undefined ? undefined : startTimeFromStat(stat);
}

/** Whether a process with this id exists (EPERM: it does, under another user). */
export function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

let pidNamespace: string | undefined | null = null;

/**
 * This process's PID namespace (Linux: `pid:[4026531836]`), or undefined where it cannot be read.
 * Two processes in one namespace see each other's ids; a container has a namespace of its own.
 */
export function currentPidNamespace(): string | undefined {
  if (pidNamespace === null) {
    try {
      pidNamespace = readlinkSync('/proc/self/ns/pid');
    } catch {
      pidNamespace = undefined;
    }
  }
  return pidNamespace;
}
