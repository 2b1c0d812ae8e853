// What the sandbox's routes share: the data, the bad-day dice, the clock and where it is reachable.
import type { ServerResponse } from 'node:http';
import type { EnvelopeBudget } from './envelope-budget.js';
import type { Faults } from './faults/faults.js';
import type { RingLog } from './ring-log.js';
import type { StateFile } from './state/state-file.js';
import type { EnvelopeRecord, SandboxStore } from './state/store.js';
import type { UlidFactory } from './state/ulid.js';

/** A request as the sandbox received it (every request but the admin routes'), for GET /_sandbox/requests. */
export interface ReceivedRequest {
  /** The request id: the client's X-Request-Id when it sent a usable one, else the sandbox's own. */
  id: string;
  /** Unix milliseconds when it arrived. */
  receivedAt: number;
  method: string;
  /** The request target as sent: path and query string. */
  path: string;
  /** As received (redactedHeaders() before they are shown: Authorization and Proxy-Authorization). */
  headers: Record<string, string | string[] | undefined>;
  /**
   * The body as text, once it was read ('' when it was not); of a body sent without a usable token,
   * only its first 1 KiB (request-log.ts).
   */
  body: string;
  /** The body's full length in bytes (0 until it was read). */
  bodyBytes: number;
  /** True when `body` holds only the start of the body. */
  bodyTruncated: boolean;
  /** The status answered; 'dropped' (closed on purpose), 'aborted' (the client went away) or null while in flight. */
  status: number | 'dropped' | 'aborted' | null;
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
  /** The last requests received (capacity 0: none kept). */
  readonly requests: RingLog<ReceivedRequest>;
  /** The last envelopes created by this run (not those restored from --state). */
  readonly created: RingLog<EnvelopeRecord>;
  /** The most bytes of envelopes kept (envelopeBytes): past it a create is answered 507, nothing made. */
  readonly envelopeBudget: EnvelopeBudget;
}
