// The state file's format: a snapshot (`<state>`, one JSON object, envelopes one per line) and a
// journal of the changes since (`<state>.journal`, JSON Lines). Both are validated on load; token
// values never appear, only their SHA-256 digests.
import * as z from 'zod/mini';
import { EnvelopeStatus, MergeData, Signatory, ulid } from '../../api/schemas.js';
import { describeIssues } from '../../text/issues.js';
import { MergeTagName } from './seed.js';
import type { Change, EnvelopeRecord, Organisation } from './store.js';

const STATE_FORMAT = 'esign-sandbox-state';
const STATE_VERSION = 1;

const timestamp = () => z.iso.datetime({ error: 'must be an ISO 8601 UTC timestamp' });
const text = () => z.string().check(z.minLength(1, 'must not be empty'));
const sequence = () => z.number().check(z.int(), z.gte(0));

const StoredToken = z.strictObject({
  name: text(),
  sha256: z.string().check(z.regex(/^[0-9a-f]{64}$/, 'must be a SHA-256 digest in hex')),
  created_at: timestamp(),
  revoked_at: z.nullable(timestamp()),
});

const StoredTemplate = z.strictObject({
  id: ulid(),
  name: text(),
  merge_tags: z.array(MergeTagName),
});

const StoredOrganisation = z.strictObject({
  name: text(),
  tokens: z.array(StoredToken),
  templates: z.array(StoredTemplate),
});

export const StoredEnvelope = z.strictObject({
  id: ulid(),
  template_id: ulid(),
  status: EnvelopeStatus,
  created_at: timestamp(),
  expires_at: timestamp(),
  merge_data: MergeData,
  signatory: Signatory,
});
export type StoredEnvelope = z.infer<typeof StoredEnvelope>;

export const Snapshot = z.strictObject({
  format: z.literal(STATE_FORMAT, { error: `must be "${STATE_FORMAT}"` }),
  version: z.literal(STATE_VERSION, {
    error: `must be ${STATE_VERSION} (was the file made by another esign version?)`,
  }),
  seq: sequence(),
  seed_fingerprint: z.string(),
  organisations: z.array(StoredOrganisation),
  envelopes: z.array(StoredEnvelope),
});
export type Snapshot = z.infer<typeof Snapshot>;

export const JournalRecord = z.discriminatedUnion('type', [
  z.strictObject({ seq: sequence(), type: z.literal('envelope'), envelope: StoredEnvelope }),
  z.strictObject({
    seq: sequence(),
    type: z.literal('token_created'),
    organisation: text(),
    token: StoredToken,
  }),
  z.strictObject({
    seq: sequence(),
    type: z.literal('token_revoked'),
    organisation: text(),
    token: text(),
    at: timestamp(),
  }),
]);
export type JournalRecord = z.infer<typeof JournalRecord>;

/** The first few zod issues as `path: message`, for an error about a file. */
export function describeFirstIssues(
  input: unknown,
  issues: readonly { path: readonly PropertyKey[]; message: string }[],
): string {
  const lines = describeIssues(issues.slice(0, 3), input);
  return lines.join('; ') + (issues.length > 3 ? `; and ${issues.length - 3} more` : '');
}

const iso = (ms: number) => new Date(ms).toISOString();

/** One envelope as JSON, built by hand from its compact details: no parse, no nested objects. */
function envelopeJson(envelope: EnvelopeRecord): string {
  return `{"id":"${envelope.id}","template_id":"${envelope.template.id}","status":"${envelope.status}","created_at":"${iso(envelope.createdAt)}","expires_at":"${iso(envelope.expiresAt)}",${envelope.details.slice(1)}`;
}

function organisationJson(org: Organisation) {
  return {
    name: org.name,
    tokens: org.tokens.map((t) => ({
      name: t.name,
      sha256: t.digest.toString('hex'),
      created_at: iso(t.createdAt),
      revoked_at: t.revokedAt === null ? null : iso(t.revokedAt),
    })),
    templates: org.templates.map((t) => ({ id: t.id, name: t.name, merge_tags: t.mergeTags })),
  };
}

/** The whole state as snapshot text: a readable head, then one envelope per line. */
export function snapshotText(
  state: {
    seq: number;
    organisations: readonly Organisation[];
    envelopes: ReadonlyMap<string, EnvelopeRecord>;
  },
  seedFingerprint: string,
): string {
  const head = JSON.stringify(
    {
      format: STATE_FORMAT,
      version: STATE_VERSION,
      seq: state.seq,
      seed_fingerprint: seedFingerprint,
      organisations: state.organisations.map(organisationJson),
    },
    null,
    2,
  );
  const lines: string[] = [];
  for (const envelope of state.envelopes.values()) lines.push(envelopeJson(envelope));
  const envelopes = lines.length === 0 ? '[]' : `[\n${lines.join(',\n')}\n]`;
  return `${head.slice(0, -2)},\n  "envelopes": ${envelopes}\n}\n`;
}

/** One journal line (without the newline) for a change. */
export function journalLine(change: Change): string {
  switch (change.type) {
    case 'envelope':
      return `{"seq":${change.seq},"type":"envelope","envelope":${envelopeJson(change.envelope)}}`;
    case 'token_created':
      return JSON.stringify({
        seq: change.seq,
        type: 'token_created',
        organisation: change.token.organisation.name,
        token: organisationJson(change.token.organisation).tokens.find((t) => t.name === change.token.name),
      });
    case 'token_revoked':
      return JSON.stringify({
        seq: change.seq,
        type: 'token_revoked',
        organisation: change.token.organisation.name,
        token: change.token.name,
        at: iso(change.token.revokedAt ?? 0),
      });
  }
}
