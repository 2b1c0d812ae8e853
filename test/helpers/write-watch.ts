// Loaded into the built binary with `node --import` (bundled by the test): watches every write(2)
// to a batch's results file and its journal, and after each one counts what a resume would call
// unknown if a SIGKILL landed right there: requests the journal notes as sent that have no result
// in the file. At exit it writes the worst count, and how many writes it saw, to ESIGN_WATCH_REPORT.
// It wraps fs through its public API; syncBuiltinESMExports() carries the wrappers to the bundle's
// `import { writeSync } from 'node:fs'`.
import fs from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';

const output = process.env.ESIGN_WATCH_OUTPUT ?? '';
const report = process.env.ESIGN_WATCH_REPORT ?? '';
const { openSync, writeSync } = fs;
const watched = new Map<number, { journal: boolean; partial: string }>();
const sent = new Set<number>();
const answered = new Set<number>();
let writes = 0;
let worst = 0;

fs.openSync = ((...args: Parameters<typeof openSync>) => {
  const fd = openSync(...args);
  const path = args[0];
  if (path === output || path === `${output}.pending`)
    watched.set(fd, { journal: path !== output, partial: '' });
  else watched.delete(fd);
  return fd;
}) as typeof fs.openSync;

fs.writeSync = ((...args: unknown[]) => {
  const written = (writeSync as unknown as (...args: unknown[]) => number)(...args);
  const [fd, buffer, offset = 0] = args as [number, unknown, number | undefined];
  const file = watched.get(fd);
  if (file && Buffer.isBuffer(buffer)) {
    const lines = (file.partial + buffer.subarray(offset, offset + written).toString()).split('\n');
    file.partial = lines.pop() ?? '';
    for (const line of lines) {
      const entry = JSON.parse(line) as { sent?: number; line?: number; reserved?: boolean };
      if (!file.journal && entry.line !== undefined) answered.add(entry.line);
      if (file.journal && entry.sent !== undefined) sent.add(entry.sent);
    }
    let unknown = 0;
    for (const line of sent) if (!answered.has(line)) unknown++;
    worst = Math.max(worst, unknown);
    writes++;
  }
  return written;
}) as typeof fs.writeSync;

syncBuiltinESMExports();

process.on('exit', () => {
  fs.writeFileSync(report, JSON.stringify({ writes, worst, sent: sent.size, answered: answered.size }));
});
