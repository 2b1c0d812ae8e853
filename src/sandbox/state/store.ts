// The sandbox's data in memory: organisations with their tokens and templates, and the envelopes.
// Every change gets a sequence number and is handed to `onChange` (the state file's journal), whose
// promise says when the change is on disk.
import type { CreateEnvelopeRequest, ENVELOPE_STATUSES } from '../../api/schemas.js';
import type { Seed } from './seed.js';
import { hashToken, sameDigest } from './tokens.js';

export interface Organisation {
  readonly name: string;
  readonly tokens: ApiToken[];
  readonly templates: Template[];
}

export interface Template {
  /** Upper case; requests may use any case (ULIDs are case-insensitive). */
  readonly id: string;
  readonly name: string;
  readonly mergeTags: readonly string[];
  readonly tagSet: ReadonlySet<string>;
  readonly organisation: Organisation;
}

export interface ApiToken {
  readonly name: string;
  /** SHA-256 of the value; the value itself is never kept. */
  readonly digest: Buffer;
  readonly createdAt: number;
  revokedAt: number | null;
  readonly organisation: Organisation;
}

export interface EnvelopeRecord {
  readonly id: string;
  readonly template: Template;
  readonly status: (typeof ENVELOPE_STATUSES)[number];
  readonly createdAt: number;
  readonly expiresAt: number;
  /**
   * `{"merge_data":{…},"signatory":{…}}` as compact JSON. One string per envelope instead of two
   * nested objects keeps 100,000 envelopes small; it is parsed only to show the signing page.
   */
  readonly details: string;
}

/** What an envelope keeps of its create request. */
export type EnvelopeDetails = Pick<CreateEnvelopeRequest, 'merge_data' | 'signatory'>;

export type Change =
  | { readonly type: 'envelope'; readonly seq: number; readonly envelope: EnvelopeRecord }
  | { readonly type: 'token_created'; readonly seq: number; readonly token: ApiToken }
  | { readonly type: 'token_revoked'; readonly seq: number; readonly token: ApiToken };

export interface OrganisationInput {
  name: string;
  tokens: { name: string; digest: Buffer; createdAt: number; revokedAt: number | null }[];
  templates: { id: string; name: string; merge_tags: readonly string[] }[];
}

const DURABLE = Promise.resolve();

/**
 * About how many bytes of memory an envelope takes: its details as UTF-16 (the most a string
 * takes), its ids and times, and its entries in the maps that hold it.
 */
export function envelopeBytes(details: string): number {
  return 2 * details.length + 256;
}

export class SandboxStore {
  readonly organisations: Organisation[] = [];
  readonly envelopes = new Map<string, EnvelopeRecord>();
  /** The envelopes' bytes, about (envelopeBytes): what the budget of a sandbox is measured against. */
  envelopeBytes = 0;
  readonly #templates = new Map<string, Template>();
  /** By hex digest: the key is a hash of the presented value, so the lookup's timing reveals nothing about a token. */
  readonly #tokens = new Map<string, ApiToken>();
  /** The sequence number of the last change. */
  seq = 0;
  /** Called after every change; resolves when the change is durable. */
  onChange: ((change: Change) => Promise<void>) | undefined;

  static fromSeed(seed: Seed, now: number): SandboxStore {
    const store = new SandboxStore();
    for (const org of seed.organisations) {
      store.addOrganisation({
        name: org.name,
        tokens: org.tokens.map((t) => ({
          name: t.name,
          digest: hashToken(t.token),
          createdAt: now,
          revokedAt: null,
        })),
        templates: org.templates,
      });
    }
    return store;
  }

  addOrganisation(input: OrganisationInput): Organisation {
    const organisation: Organisation = { name: input.name, tokens: [], templates: [] };
    for (const t of input.tokens) this.#attachToken(organisation, t);
    for (const t of input.templates) {
      const template: Template = {
        id: t.id.toUpperCase(),
        name: t.name,
        mergeTags: [...t.merge_tags],
        tagSet: new Set(t.merge_tags),
        organisation,
      };
      organisation.templates.push(template);
      this.#templates.set(template.id, template);
    }
    this.organisations.push(organisation);
    return organisation;
  }

  #attachToken(organisation: Organisation, t: OrganisationInput['tokens'][number]): ApiToken {
    const token: ApiToken = { ...t, organisation };
    organisation.tokens.push(token);
    this.#tokens.set(t.digest.toString('hex'), token);
    return token;
  }

  /** The organisation of an active token, or undefined for an unknown or revoked one. */
  authenticate(value: string): Organisation | undefined {
    return this.activeToken(value)?.organisation;
  }

  /** The token with this value when it is active (known and not revoked). */
  activeToken(value: string): ApiToken | undefined {
    const token = this.findToken(value);
    return token && token.revokedAt === null ? token : undefined;
  }

  /** The token with this value, revoked or not. */
  findToken(value: string): ApiToken | undefined {
    const digest = hashToken(value);
    const token = this.#tokens.get(digest.toString('hex'));
    return token && sameDigest(token.digest, digest) ? token : undefined;
  }

  findOrganisation(name: string): Organisation | undefined {
    return this.organisations.find((org) => org.name === name);
  }

  findTemplate(id: string): Template | undefined {
    return this.#templates.get(id.toUpperCase());
  }

  isTokenDigestKnown(digest: Buffer): boolean {
    return this.#tokens.has(digest.toString('hex'));
  }

  #change(change: Change): Promise<void> {
    return this.onChange ? this.onChange(change) : DURABLE;
  }

  /** Puts back an envelope of the state file (no change: it is on disk already). */
  restoreEnvelope(envelope: EnvelopeRecord): void {
    this.envelopes.set(envelope.id, envelope);
    this.envelopeBytes += envelopeBytes(envelope.details);
  }

  /** Adds an envelope; the promise resolves once it is durable. */
  addEnvelope(envelope: EnvelopeRecord): Promise<void> {
    this.restoreEnvelope(envelope);
    return this.#change({ type: 'envelope', seq: ++this.seq, envelope });
  }

  addToken(
    organisation: Organisation,
    name: string,
    digest: Buffer,
    at: number,
  ): { token: ApiToken; durable: Promise<void> } {
    const token = this.#attachToken(organisation, { name, digest, createdAt: at, revokedAt: null });
    return { token, durable: this.#change({ type: 'token_created', seq: ++this.seq, token }) };
  }

  revokeToken(token: ApiToken, at: number): Promise<void> {
    token.revokedAt = at;
    return this.#change({ type: 'token_revoked', seq: ++this.seq, token });
  }
}

/** The merge data and signatory of an envelope, parsed from its compact form. */
export function envelopeDetails(envelope: EnvelopeRecord): EnvelopeDetails {
  return JSON.parse(envelope.details) as EnvelopeDetails;
}
