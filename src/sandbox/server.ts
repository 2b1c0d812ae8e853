// esign sandbox's server: a local implementation of the envelope API on node:http.
//
// In-process use (tests start one on port 0 and use its base URL and tokens):
//
//   const sandbox = await startSandbox({ port: 0 });          // quiet unless `log` is given
//   const token = sandbox.organisations[0].token;             // Acme Corp's token
//   const templateId = sandbox.organisations[0].templates[0].id;
//   await fetch(`${sandbox.baseUrl}/native/envelopes/create`, { … });
//   await sandbox.close();                                    // finishes in-flight requests, saves state
//
// Routes (routes/): POST /api/v1/native/envelopes/create (create.ts), GET /sign/<id> (sign.ts),
// /_sandbox/* with the admin secret (admin.ts). Everything else: JSON 404 or 405. The data and the
// state file are in state/, the bad-day options in faults/. The sandbox speaks HTTP, never CLI: its
// errors are SandboxErrors (sandbox-error.ts), which the CLI words and maps to exit codes.

import { randomBytes, randomInt } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { escapeControl, escapedExcerpt, quotedExcerpt } from '../text/terminal-text.js';
import { DEFAULT_ENVELOPE_BUDGET_MIB, DEFAULT_KEEP_REQUESTS } from './defaults.js';
import { type EnvelopeBudget, envelopeBudget } from './envelope-budget.js';
import { type FaultOptions, Faults, NO_FAULTS, ONE_SHOT_FORMAT, parseOneShotFault } from './faults/faults.js';
import { parseRateLimit, type RateLimitHeaderStyle, type RateLimitPolicy } from './faults/rate-limit.js';
import { createRequestLog, DEFAULT_KEEP_REQUEST_BYTES, keepBody as keepRequestBody } from './request-log.js';
import { RingLog } from './ring-log.js';
import { ADMIN_PREFIX, handleAdmin } from './routes/admin.js';
import { API_PREFIX, applyRateLimit, CREATE_PATH, type FaultShot, handleCreate } from './routes/create.js';
import { pathOf, redactedHeaders, sendJson, sendMethodNotAllowed } from './routes/http-io.js';
import { handleOrgTemplates, ORG_TEMPLATES_PATH } from './routes/org-templates.js';
import { handleSignPage, SIGN_PREFIX } from './routes/sign.js';
import type { ReceivedRequest, SandboxRuntime } from './runtime.js';
import { SandboxError } from './sandbox-error.js';
import type { StateFileSystem } from './state/file-system.js';
import { DEFAULT_SEED, type Seed } from './state/seed.js';
import { StateFile } from './state/state-file.js';
import { SandboxStore } from './state/store.js';
import { bearerToken, hashToken, newAdminSecret } from './state/tokens.js';
import { createUlidFactory } from './state/ulid.js';

export interface SandboxOptions {
  /** 0 (the default) picks a free port. */
  port?: number;
  /** Default 127.0.0.1. */
  host?: string;
  /** Organisations, tokens and templates; default DEFAULT_SEED. Given with `statePath`, an existing state file must have been made from it. */
  seed?: Seed;
  /** Keep envelopes, tokens and revocations in this file (and `<file>.journal`) across restarts. */
  statePath?: string;
  /** The lock and folder sync the state file is kept with; needed with `statePath` (esign passes its own). */
  fileSystem?: StateFileSystem;
  /** Default: random, new on every start. */
  adminSecret?: string;
  latencyMs?: number;
  failRate?: number;
  /** Create requests per window and token: a number (per second), `'50/5s'`-style text or a policy; default no limit. */
  rateLimit?: number | string | RateLimitPolicy | null;
  /** Rate-limit headers on API answers while a limit is set; default 'x-ratelimit'. */
  rateLimitHeaders?: RateLimitHeaderStyle;
  dropRate?: number;
  /** Seed of the bad-day dice; default: random (see `randomSeed` on the result). */
  randomSeed?: number;
  /** Receives request log lines (`POST /api/v1/… 200 3ms`) and notes. Default: silent. */
  log?: (line: string) => void;
  /** The clock for created_at and expiry; default the system clock. */
  now?: () => Date;
  /** How many of the last requests (all but admin ones) to keep for GET /_sandbox/requests; 0 keeps none. Default 10,000. */
  keepRequests?: number;
  /** The most bytes the request log keeps, about (its oldest requests dropped past it). Default 16 MiB. */
  keepRequestBytes?: number;
  /** Fold the journal into the snapshot once it has this many bytes (default 64 MiB). */
  compactAfterBytes?: number;
  /**
   * The most memory the envelopes may take, about (their merge data and signatories, as UTF-16):
   * past it a create is answered 507 and nothing is made. Default DEFAULT_ENVELOPE_BUDGET; never
   * more than this process's heap can hold (envelope-budget.ts).
   */
  envelopeBudget?: number;
}

/** How much memory the envelopes may take unless told otherwise: 256 MiB. */
const DEFAULT_ENVELOPE_BUDGET = DEFAULT_ENVELOPE_BUDGET_MIB * 1024 * 1024;

interface SandboxTokenInfo {
  name: string;
  /** The value, when known: seed tokens are; tokens made at run time are shown only when made. */
  token: string | null;
  revoked: boolean;
}

interface SandboxOrganisationInfo {
  name: string;
  /** The first active token whose value is known, or null. */
  token: string | null;
  tokens: SandboxTokenInfo[];
  templates: { id: string; name: string; merge_tags: string[] }[];
}

export interface RunningSandbox {
  /** `http://127.0.0.1:<port>`: the sandbox itself (signing pages, admin routes). */
  url: string;
  /** `http://127.0.0.1:<port>/api/v1`: what `esign` takes as its base URL. */
  baseUrl: string;
  host: string;
  port: number;
  /** Bearer secret for /_sandbox/* (revoke and create tokens, stats). */
  adminSecret: string;
  /** Absolute path of the state file, or null. */
  statePath: string | null;
  /** True when the data came from an existing state file. */
  restored: boolean;
  /** Seed of the bad-day dice actually used. */
  randomSeed: number;
  organisations: SandboxOrganisationInfo[];
  /** The last requests received (all but admin ones), oldest first: what GET /_sandbox/requests lists. */
  requests(): ReceivedRequest[];
  /** Changes bad-day options while running (tests); a new randomSeed restarts the dice. */
  configureFaults(changes: Partial<FaultOptions>): void;
  envelopeCount(): number;
  /** The envelopes' budget in force: what was asked, or less when the heap is smaller. */
  envelopeBudget: EnvelopeBudget;
  /**
   * With a state file: aborted when another sandbox took the state file over (this one stood still
   * past its lock's lease); its reason is a SandboxError `state_lock_lost`. The sandbox then writes
   * nothing more (its writes are answered 500), and its owner should close it; close() rejects with
   * that error.
   */
  stateLost: AbortSignal | undefined;
  /** Stops accepting, finishes in-flight requests, saves the state file. Safe to call twice. */
  close(): Promise<void>;
}

/** Requests kept for GET /_sandbox/requests unless told otherwise; envelopes listed by GET /_sandbox/envelopes. */
const KEEP_ENVELOPES = 10_000;

/** A client's X-Request-Id is kept when it is 1 to 128 visible ASCII characters. */
const USABLE_REQUEST_ID = /^[\x21-\x7e]{1,128}$/;

function rateLimitPolicyOf(value: SandboxOptions['rateLimit']): RateLimitPolicy | null {
  if (value === undefined || value === null) return null;
  const parsed = typeof value === 'object' ? value : parseRateLimit(String(value));
  if (typeof parsed === 'string')
    throw new SandboxError('bad_option', `rateLimit ${parsed} (got ${JSON.stringify(value)}).`);
  return parsed;
}

function fileSystemFor(options: SandboxOptions): StateFileSystem {
  if (options.fileSystem) return options.fileSystem;
  throw new SandboxError(
    'bad_option',
    'statePath needs fileSystem: the lock and folder sync the state file is kept with.',
    {
      hint: "Pass esign's (src/commands/sandbox.ts does), or leave out statePath to keep the data in memory.",
    },
  );
}

/** How long close() waits for in-flight requests before cutting their connections. */
const CLOSE_GRACE_MS = 10_000;

function originOf(host: string, port: number): string {
  // A wildcard address is not somewhere to send a browser: use loopback in URLs.
  const shown = host === '0.0.0.0' ? '127.0.0.1' : host === '::' ? '::1' : host;
  return `http://${shown.includes(':') ? `[${shown}]` : shown}:${port}`;
}

function organisationInfo(store: SandboxStore, seed: Seed): SandboxOrganisationInfo[] {
  const known = new Map<string, string>();
  for (const org of seed.organisations)
    for (const t of org.tokens) known.set(hashToken(t.token).toString('hex'), t.token);
  return store.organisations.map((org) => {
    const tokens = org.tokens.map((t) => ({
      name: t.name,
      token: known.get(t.digest.toString('hex')) ?? null,
      revoked: t.revokedAt !== null,
    }));
    return {
      name: org.name,
      token: tokens.find((t) => t.token !== null && !t.revoked)?.token ?? null,
      tokens,
      templates: org.templates.map((t) => ({ id: t.id, name: t.name, merge_tags: [...t.mergeTags] })),
    };
  });
}

async function listen(server: ReturnType<typeof createServer>, port: number, host: string): Promise<void> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  }).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'EADDRINUSE') {
      throw new SandboxError('port_in_use', `Port ${port} on ${host} is already in use.`, {
        hint: 'Pick another port, or port 0 for a free one.',
        cause: error,
      });
    }
    if (error.code === 'EACCES') {
      throw new SandboxError('port_forbidden', `Not allowed to listen on port ${port}.`, {
        hint: 'Ports below 1024 need privileges; pick a higher port.',
        cause: error,
      });
    }
    if (error.code === 'EADDRNOTAVAIL' || error.code === 'ENOTFOUND' || error.code === 'EAI_AGAIN') {
      throw new SandboxError(
        'no_such_address',
        `Cannot listen on ${host}: no such address on this machine.`,
        {
          hint: 'The default, 127.0.0.1, always works.',
          host,
          cause: error,
        },
      );
    }
    throw error;
  });
}

export async function startSandbox(options: SandboxOptions = {}): Promise<RunningSandbox> {
  const host = options.host ?? '127.0.0.1';
  const log = options.log ?? (() => {});
  const clock = options.now;
  const now = clock ? () => clock().getTime() : Date.now;
  const seed = options.seed ?? DEFAULT_SEED;
  const stateFile = options.statePath
    ? await StateFile.open({
        path: options.statePath,
        seed,
        seedIsExplicit: options.seed !== undefined,
        now: now(),
        warn: log,
        compactAfterBytes: options.compactAfterBytes,
        fileSystem: fileSystemFor(options),
      })
    : undefined;
  const store = stateFile?.store ?? SandboxStore.fromSeed(seed, now());
  const randomSeed = (options.randomSeed ?? randomInt(0, 2 ** 32)) >>> 0;
  const faults = new Faults({
    latencyMs: options.latencyMs ?? NO_FAULTS.latencyMs,
    failRate: options.failRate ?? NO_FAULTS.failRate,
    rateLimit: rateLimitPolicyOf(options.rateLimit),
    rateLimitHeaders: options.rateLimitHeaders ?? NO_FAULTS.rateLimitHeaders,
    dropRate: options.dropRate ?? NO_FAULTS.dropRate,
    randomSeed,
  });
  const adminSecret = options.adminSecret ?? newAdminSecret();
  const requestIdPrefix = `req_${randomBytes(4).toString('hex')}_`;
  let requestCount = 0;
  const inFlight = new Set<ServerResponse>();
  let stopping = false;

  const server = createServer({ noDelay: true });
  const sandbox: SandboxRuntime = {
    store,
    faults,
    stateFile,
    origin: '', // set once listening
    now,
    newId: createUlidFactory(),
    adminDigest: hashToken(adminSecret),
    startedAt: now(),
    dropped: new WeakSet(),
    requests: createRequestLog(
      options.keepRequests ?? DEFAULT_KEEP_REQUESTS,
      options.keepRequestBytes ?? DEFAULT_KEEP_REQUEST_BYTES,
    ),
    created: new RingLog(KEEP_ENVELOPES),
    envelopeBudget: envelopeBudget(options.envelopeBudget ?? DEFAULT_ENVELOPE_BUDGET),
  };

  /** Rate-limit headers for answers that count nothing (404, 405 under the API's prefix). */
  const peekRateLimit = (req: IncomingMessage, res: ServerResponse): void => {
    const limiter = faults.limiter;
    if (!limiter) return;
    const presented = bearerToken(req.headers.authorization);
    const token = presented === undefined ? undefined : store.activeToken(presented);
    const now = Date.now();
    applyRateLimit(res, limiter, limiter.peek(token, now), now);
  };

  /**
   * The fault a create request meets: its own X-Sandbox-Fault header, else the next one queued.
   * 'answered': the header was not valid, and the request has had its 400.
   */
  const takeFault = (req: IncomingMessage, res: ServerResponse): FaultShot | 'answered' | undefined => {
    const header = req.headers['x-sandbox-fault'];
    if (header === undefined) {
      const fault = faults.takeNext();
      return fault ? { fault, source: 'queued with POST /_sandbox/faults' } : undefined;
    }
    const fault = parseOneShotFault(String(header));
    if (fault) return { fault, source: 'X-Sandbox-Fault' };
    peekRateLimit(req, res);
    sendJson(res, 400, {
      message: `X-Sandbox-Fault must be ${ONE_SHOT_FORMAT} (got ${quotedExcerpt(String(header))}).`,
    });
    return 'answered';
  };

  /** A 404 that says where the API is, for a path outside it. */
  const notFound = (req: IncomingMessage, res: ServerResponse, path: string): void => {
    const isApi = path.startsWith(API_PREFIX);
    if (isApi) peekRateLimit(req, res);
    const where = isApi ? '' : ` The API's base URL is ${sandbox.origin}${API_PREFIX}.`;
    sendJson(res, 404, { message: `Not found: ${req.method} ${escapedExcerpt(path)}.${where}` });
  };

  /** POST /api/v1/native/envelopes/create; the request log keeps the body it reads. */
  const routeCreate = (
    req: IncomingMessage,
    res: ServerResponse,
    entry: ReceivedRequest | undefined,
    shot: FaultShot | undefined,
  ): Promise<void> | void => {
    if (req.method !== 'POST') {
      peekRateLimit(req, res);
      return sendMethodNotAllowed(res, req.method ?? '', CREATE_PATH, 'POST');
    }
    const keepBody =
      entry &&
      ((text: string, authenticated: boolean) =>
        keepRequestBody(sandbox.requests, entry, text, authenticated));
    return handleCreate(req, res, sandbox, { shot, onBody: keepBody });
  };

  const route = async (
    req: IncomingMessage,
    res: ServerResponse,
    path: string,
    entry: ReceivedRequest | undefined,
  ): Promise<void> => {
    if (path === ORG_TEMPLATES_PATH) return handleOrgTemplates(req, res, sandbox);
    if (path.startsWith(ADMIN_PREFIX)) return handleAdmin(req, res, path, sandbox);
    const isCreate = path === CREATE_PATH;
    const shot = isCreate && req.method === 'POST' ? takeFault(req, res) : undefined;
    if (shot === 'answered') return;
    const latencyMs = shot?.fault.kind === 'latency' ? shot.fault.ms : faults.options.latencyMs;
    if (latencyMs > 0) await sleep(latencyMs);
    if (isCreate) return routeCreate(req, res, entry, shot);
    if (path.startsWith(SIGN_PREFIX)) return handleSignPage(req, res, path, sandbox);
    notFound(req, res, path);
  };

  /** Gives the request its id (the client's X-Request-Id when usable) and keeps it for GET /_sandbox/requests. */
  const noteRequest = (req: IncomingMessage, res: ServerResponse): ReceivedRequest | undefined => {
    const given = req.headers['x-request-id'];
    const id =
      typeof given === 'string' && USABLE_REQUEST_ID.test(given)
        ? given
        : `${requestIdPrefix}${(++requestCount).toString(36)}`;
    res.setHeader('x-request-id', id);
    if (sandbox.requests.capacity === 0) return undefined;
    const entry: ReceivedRequest = {
      id,
      receivedAt: Date.now(),
      method: req.method ?? '',
      path: req.url ?? '',
      headers: req.headers, // redacted when listed: no copy on the hot path
      body: '',
      bodyBytes: 0,
      bodyTruncated: false,
      status: null,
    };
    sandbox.requests.add(entry);
    return entry;
  };

  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const started = performance.now();
    const path = pathOf(req.url);
    const entry = path.startsWith(ADMIN_PREFIX) ? undefined : noteRequest(req, res);
    inFlight.add(res);
    if (stopping) res.setHeader('connection', 'close');
    res.on('close', () => {
      inFlight.delete(res);
      const status = sandbox.dropped.has(res)
        ? 'dropped'
        : res.writableFinished
          ? String(res.statusCode)
          : 'aborted';
      if (entry) entry.status = status === 'dropped' || status === 'aborted' ? status : res.statusCode;
      log(`${req.method} ${escapedExcerpt(path)} ${status} ${Math.round(performance.now() - started)}ms`);
      if (stopping) setImmediate(() => server.closeIdleConnections());
    });
    route(req, res, path, entry).catch((error: unknown) => {
      // An error's message can quote what the client sent (a parser's, say): escaped like the path.
      log(
        `error: ${req.method} ${escapedExcerpt(path)}: ${escapeControl((error as Error)?.message ?? String(error))}`,
      );
      if (!res.headersSent)
        sendJson(res, 500, { message: `Server Error: ${(error as Error)?.message ?? 'unexpected failure'}` });
      else res.destroy();
    });
  });
  // Requests node:http cannot parse; answered in JSON like everything else.
  server.on('clientError', (error: NodeJS.ErrnoException, socket) => {
    if (!socket.writable) {
      socket.destroy();
      return;
    }
    const tooLarge = error.code === 'HPE_HEADER_OVERFLOW';
    const status = tooLarge ? '431 Request Header Fields Too Large' : '400 Bad Request';
    const body = JSON.stringify({ message: tooLarge ? 'Request Header Fields Too Large.' : 'Bad Request.' });
    socket.end(
      `HTTP/1.1 ${status}\r\ncontent-type: application/json\r\ncontent-length: ${body.length}\r\nconnection: close\r\n\r\n${body}`,
    );
  });

  try {
    await listen(server, options.port ?? 0, host);
  } catch (error) {
    await stateFile?.close();
    throw error;
  }
  const port = (server.address() as AddressInfo).port;
  const url = originOf(host, port);
  sandbox.origin = url;

  let closing: Promise<void> | undefined;
  const close = () => {
    closing ??= (async () => {
      stopping = true;
      for (const res of inFlight) if (!res.headersSent) res.setHeader('connection', 'close');
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      const grace = setTimeout(() => server.closeAllConnections(), CLOSE_GRACE_MS);
      await closed;
      clearTimeout(grace);
      await stateFile?.close();
    })();
    return closing;
  };

  return {
    url,
    baseUrl: `${url}${API_PREFIX}`,
    host,
    port,
    adminSecret,
    statePath: stateFile?.path ?? null,
    restored: stateFile?.restored ?? false,
    randomSeed,
    organisations: organisationInfo(store, seed),
    requests: () => sandbox.requests.items().map((r) => ({ ...r, headers: redactedHeaders(r.headers) })),
    configureFaults: (changes) => faults.configure(changes),
    envelopeCount: () => store.envelopes.size,
    envelopeBudget: sandbox.envelopeBudget,
    stateLost: stateFile?.lost,
    close,
  };
}
