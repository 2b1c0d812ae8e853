// What the sandbox's routes share: the data, the bad-day dice, the clock and where it is reachable.
import type { ServerResponse } from 'node:http';
import type { Faults } from './faults.js';
import type { StateFile } from './state-file.js';
import type { SandboxStore } from './store.js';
import type { UlidFactory } from './ulid.js';

/** A request as the sandbox received it, kept only with `recordRequests` (for tests). */
export interface ReceivedRequest {
  method: string;
  /** The request target as sent: path and query string. */
  path: string;
  headers: Record<string, string | string[] | undefined>;
  /** The body as text, once it was read ('' when it was not). */
  body: string;
}

export interface SandboxRuntime {
  readonly store: SandboxStore;
  readonly faults: Faults;
  readonly stateFile: StateFile | undefined;
  /** `http://127.0.0.1:4010`: signing URLs start with it. Set once the server listens. */
  origin: string;
  readonly now: () => number;
  readonly newId: UlidFactory;
  readonly adminDigest: Buffer;
  readonly startedAt: number;
  /** Answers whose connection was closed on purpose (--drop-rate), for the request log. */
  readonly dropped: WeakSet<ServerResponse>;
}
