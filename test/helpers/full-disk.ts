// A real full disk for tests: a tmpfs of 64 KiB mounted for one test file (mounting needs root; a
// test skips itself, with the reason, where it cannot).
import { execFileSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, type TestContext } from 'vitest';

export interface SmallDisk {
  /** The folder the tmpfs is mounted on. */
  readonly folder: string;
  /** Whether the tmpfs is mounted (known once the file's first beforeAll has run). */
  readonly mounted: boolean;
  /** Skips the test, saying why, when the tmpfs could not be mounted; true when it is there. */
  present(context: TestContext): boolean;
}

/** Mounts the tmpfs before the file's tests, and unmounts and removes it after them. */
export function useSmallDisk(prefix: string): SmallDisk {
  const folder = mkdtempSync(join(tmpdir(), prefix));
  let whyNot: string | undefined = 'not mounted yet';
  beforeAll(() => {
    try {
      execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=64k', 'tmpfs', folder], { stdio: 'pipe' });
      whyNot = undefined;
    } catch (error) {
      whyNot = `cannot mount a tmpfs here (needs root and mount): ${(error as Error).message.split('\n')[0]}`;
    }
  });
  afterAll(() => {
    if (whyNot === undefined) execFileSync('umount', [folder]);
    rmSync(folder, { recursive: true, force: true });
  });
  return {
    folder,
    get mounted() {
      return whyNot === undefined;
    },
    present: (context) => {
      if (whyNot !== undefined) context.skip(whyNot);
      return whyNot === undefined;
    },
  };
}

/** Writes `path` until the file system has no free page left. */
export function fillDisk(path: string): void {
  const fd = openSync(path, 'w');
  const chunk = Buffer.alloc(4096, 0x20);
  try {
    for (;;) writeSync(fd, chunk);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOSPC') throw error;
  } finally {
    closeSync(fd);
  }
}
