// Helpers for the sandbox's route tests: a quiet sandbox on 127.0.0.1 port 0 and raw HTTP calls.
import { type ChildProcess, spawn } from 'node:child_process';
import { join, resolve } from 'node:path';
import { afterEach } from 'vitest';
import { startSandbox } from '../../src/commands/sandbox.js';
import type { RunningSandbox, SandboxOptions } from '../../src/sandbox/server.js';

export const CREATE_PATH = '/native/envelopes/create';
export const ACME_OFFER = '01JD7X4ZQ8G1N6RVS0Y2MBKT3E';
export const GLOBEX_SUPPLIER = '01JD7X6C8PZ5R3V9YQ1TGM4HWB';

export function startQuietSandbox(options: SandboxOptions = {}): Promise<RunningSandbox> {
  return startSandbox({ port: 0, ...options });
}

/** The token of an organisation by index (0: Acme Corp, 1: Globex Inc). */
export function tokenOf(sandbox: RunningSandbox, index = 0): string {
  const token = sandbox.organisations[index]?.token;
  if (!token) throw new Error(`organisation ${index} has no known token`);
  return token;
}

export function validBody(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    template_id: ACME_OFFER,
    merge_data: { company: 'Acme Corp', role: 'Engineer' },
    signatory: { name: 'Ada Lovelace', email: 'ada@example.com' },
    ...overrides,
  };
}

export interface Answer {
  status: number;
  headers: Headers;
  text: string;
  json: unknown;
}

async function answerOf(response: Response): Promise<Answer> {
  const text = await response.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: response.status, headers: response.headers, text, json };
}

export interface PostOptions {
  token?: string | null;
  headers?: Record<string, string>;
  /** Sent as it is instead of JSON.stringify(body). */
  raw?: string;
  method?: string;
}

/** POSTs to the create endpoint: JSON body and the token as a bearer header unless told otherwise. */
export async function postCreate(
  sandbox: RunningSandbox,
  body: unknown,
  options: PostOptions = {},
): Promise<Answer> {
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    accept: 'application/json',
    ...options.headers,
  };
  const token = options.token === undefined ? tokenOf(sandbox) : options.token;
  if (token !== null) headers.authorization = `Bearer ${token}`;
  const response = await fetch(`${sandbox.baseUrl}${CREATE_PATH}`, {
    method: options.method ?? 'POST',
    headers,
    body: options.raw ?? JSON.stringify(body),
  });
  return answerOf(response);
}

/** A valid create request's status, or 'dropped' when the connection closed with no answer. */
export async function createOutcome(
  sandbox: RunningSandbox,
  options: PostOptions = {},
): Promise<number | 'dropped'> {
  try {
    return (await postCreate(sandbox, validBody(), options)).status;
  } catch {
    return 'dropped';
  }
}

/** For a test file: starts quiet sandboxes, each closed after the test that started it. */
export function sandboxPerTest(): (options?: SandboxOptions) => Promise<RunningSandbox> {
  const running: RunningSandbox[] = [];
  afterEach(async () => {
    await Promise.all(running.splice(0).map((sandbox) => sandbox.close()));
  });
  return async (options = {}) => {
    const sandbox = await startQuietSandbox(options);
    running.push(sandbox);
    return sandbox;
  };
}

export async function request(url: string, init: RequestInit = {}): Promise<Answer> {
  return answerOf(await fetch(url, init));
}

/** Calls an admin route with the admin secret (or another bearer value). */
export async function admin(
  sandbox: RunningSandbox,
  method: string,
  route: string,
  body?: unknown,
  bearer = sandbox.adminSecret,
): Promise<Answer> {
  return request(`${sandbox.url}/_sandbox/${route}`, {
    method,
    headers: { authorization: `Bearer ${bearer}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
}

/** A sandbox started from the built bin (`esign sandbox --port 0 --json …`), as a user starts it. */
export interface SpawnedSandbox {
  child: ChildProcess;
  info: {
    base_url: string;
    url: string;
    admin_secret: string;
    envelope_budget_mib: number;
    organisations: { token: string; templates: { id: string }[] }[];
  };
  stderr: () => string;
  exit: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** Spawns `node bin/esign.js sandbox --port 0 --json <args>` with `env` over this process's. */
export async function spawnSandbox(args: string[], env: Record<string, string>): Promise<SpawnedSandbox> {
  const bin = join(resolve(import.meta.dirname, '../..'), 'bin', 'esign.js');
  const child = spawn(process.execPath, [bin, 'sandbox', '--port', '0', '--json', ...args], {
    env: { ...process.env, NO_COLOR: '1', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((done) =>
    child.on('exit', (code, signal) => done({ code, signal })),
  );
  const line = await new Promise<string>((done, fail) => {
    child.stdout?.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      if (stdout.includes('\n')) done(stdout.slice(0, stdout.indexOf('\n')));
    });
    void exit.then(({ code }) =>
      fail(new Error(`the sandbox exited with ${code} before printing: ${stderr}`)),
    );
  });
  return { child, info: JSON.parse(line), stderr: () => stderr, exit };
}
