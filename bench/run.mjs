// npm run bench: every benchmark of the project, one after the other, in one run.
import { batchBench } from './batch.mjs';
import { rateLimitBench } from './rate-limit.mjs';
import { startupBench } from './startup.mjs';

await startupBench();
const sandbox = await import('./sandbox.mjs').catch(() => undefined);
if (sandbox && typeof sandbox.sandboxBench === 'function') await sandbox.sandboxBench();
await batchBench();
await rateLimitBench();
