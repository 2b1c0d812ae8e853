// A process that races for a lock (bundled by test/unit/lock.test.ts): it prints "ready", waits for
// a line on stdin, prints "saw <the lock's first line>" ("saw none" without a lock: what it found
// on starting, so a test can tell a real race from racers that came one after another), tries
// acquireLock once, prints "acquired" or "busy <owner>", and when it holds the lock keeps it until
// stdin ends. With a log file, it notes there when it enters and leaves.
import { appendFileSync, readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { acquireLock, releaseLock } from '../../src/fs/lock.js';

const [lockPath, waitMs, log] = process.argv.slice(2) as [string, string | undefined, string | undefined];
const lines = createInterface({ input: process.stdin })[Symbol.asyncIterator]();
process.stdout.write('ready\n');
await lines.next();
let found = 'none';
try {
  found = readFileSync(lockPath, 'utf8').split('\n')[0] as string;
} catch {}
process.stdout.write(`saw ${found}\n`);
try {
  await acquireLock(
    lockPath,
    {
      busy: (owner) => Object.assign(new Error(`busy ${owner.pid}`), { busy: true }),
      failed: (error) => error as Error,
    },
    { waitMs: Number(waitMs ?? 0) },
  );
} catch (error) {
  process.stdout.write(`${(error as Error).message}\n`);
  process.exit((error as { busy?: boolean }).busy ? 3 : 1);
}
if (log) appendFileSync(log, `enter ${process.pid}\n`);
process.stdout.write('acquired\n');
await lines.next();
if (log) appendFileSync(log, `leave ${process.pid}\n`);
await releaseLock(lockPath);
process.stdout.write('released\n');
process.exit(0);
