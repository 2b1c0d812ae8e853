// The one file that reaches into undici by path. A direct request needs only undici's Agent and its
// connector; loading them from their own modules instead of undici's index keeps fetch, WebSocket,
// caching and mocks out of every command's start-up (~18 ms). The proxy agent is loaded from the
// public index, and only when a proxy is configured (see proxy-agent.ts).
//
// These paths are not undici's public interface: test/unit/transport-contract.test.ts checks that
// they still exist and export what esign uses, against the version range below, and fails loudly
// when an upgrade changes them.
import type { Dispatcher } from 'undici';
import buildConnector from 'undici/lib/core/connect.js';
import Agent from 'undici/lib/dispatcher/agent.js';

/** The undici versions this adapter was checked against (the contract test reads it). */
export const UNDICI_CHECKED = { major: 7, minMinor: 30 } as const;

export type { Dispatcher };
export { Agent, buildConnector };

/** Loads undici's ProxyAgent: only when a request is to go through a proxy. */
export async function loadProxyAgent(): Promise<typeof import('undici').ProxyAgent> {
  return (await import('./proxy-agent.js')).ProxyAgent;
}
