// How `esign mcp` is told what it may do: --confirm, --allow-domain and --read-only, or the same in
// the environment (ESIGN_MCP_CONFIRM, ESIGN_MCP_ALLOW_DOMAINS, ESIGN_MCP_READ_ONLY: what an MCP
// Bundle's settings become). A flag wins over its variable. Decided at start, before the SDK is
// loaded: a wrong value is exit 2 at once, naming where it came from.
import { preferenceValue } from '../config/preferences.js';
import type { Env } from '../context.js';
import { UsageError } from '../errors.js';
import { type AllowedDomain, parseAllowedDomain } from '../request/signatory-domains.js';
import { CONFIRM_MODES, type ConfirmMode } from './confirm.js';

export interface ServerChoices {
  confirm?: string | undefined;
  allowDomain?: readonly string[] | undefined;
  readOnly?: boolean | undefined;
}

export interface ServerRules {
  readonly confirm: ConfirmMode;
  readonly allowedDomains: readonly AllowedDomain[];
  readonly readOnly: boolean;
  /** Where read-only came from, for messages. */
  readonly readOnlyFrom: '--read-only' | 'ESIGN_MCP_READ_ONLY';
}

export function serverRules(given: ServerChoices, env: Env): ServerRules {
  return {
    confirm: confirmMode(given.confirm, env.ESIGN_MCP_CONFIRM),
    allowedDomains: allowedDomains(given.allowDomain ?? [], env.ESIGN_MCP_ALLOW_DOMAINS),
    readOnly: given.readOnly === true || readOnlyFromEnv(env.ESIGN_MCP_READ_ONLY),
    readOnlyFrom: given.readOnly === true ? '--read-only' : 'ESIGN_MCP_READ_ONLY',
  };
}

function confirmMode(flag: string | undefined, variable: string | undefined): ConfirmMode {
  const [value, where] =
    flag !== undefined ? [flag, '--confirm'] : [variable?.trim() || 'ask', 'ESIGN_MCP_CONFIRM'];
  if ((CONFIRM_MODES as readonly string[]).includes(value)) return value as ConfirmMode;
  throw new UsageError(`${where} must be ask or never (got ${JSON.stringify(value)}).`, {
    hint: 'ask (the default): a person confirms each envelope through the client before it is sent. never: send without asking, for an assistant trusted to send.',
  });
}

function allowedDomains(flags: readonly string[], variable: string | undefined): AllowedDomain[] {
  const [values, where] =
    flags.length > 0
      ? [flags, '--allow-domain']
      : [(variable ?? '').split(/[\s,]+/).filter((value) => value !== ''), 'ESIGN_MCP_ALLOW_DOMAINS'];
  return values.map((value) => {
    const parsed = parseAllowedDomain(value);
    if ('domain' in parsed) return parsed;
    throw new UsageError(`${where} ${parsed.problem} (got ${JSON.stringify(value)}).`, {
      hint: 'Name each domain a signatory may be at: --allow-domain example.com --allow-domain *.example.org',
    });
  });
}

function readOnlyFromEnv(variable: string | undefined): boolean {
  if (variable === undefined || variable.trim() === '') return false;
  const value = preferenceValue(variable);
  if (value !== undefined) return value;
  throw new UsageError(`ESIGN_MCP_READ_ONLY must be true or false (got ${JSON.stringify(variable)}).`);
}
