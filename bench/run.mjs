// npm run bench: every benchmark of the project, one after the other, in one run.
import { existsSync } from 'node:fs';
import { startupBench } from './startup.mjs';

await startupBench();
for (const extra of ['./sandbox.mjs', './batch.mjs']) {
  if (existsSync(new URL(extra, import.meta.url))) await import(extra);
}
