// API tokens and the admin secret. Only SHA-256 digests are kept, in memory and in the state file;
// a presented value is hashed and compared with crypto.timingSafeEqual.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

export function hashToken(token: string): Buffer {
  return createHash('sha256').update(token, 'utf8').digest();
}

/** Constant-time equality of two digests. */
export function sameDigest(a: Buffer, b: Buffer): boolean {
  return a.length === b.length && timingSafeEqual(a, b);
}

/** A lower-case slug of an organisation's name, for token prefixes: "Acme Corp" -> "acme_corp". */
function slugOf(name: string): string {
  return (
    name
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '_')
      .replace(/^_+|_+$/g, '')
      .slice(0, 24) || 'org'
  );
}

/** A new random token, shown once to whoever asked for it: `sbx_<org>_<32 random characters>`. */
export function newToken(organisationName: string): string {
  return `sbx_${slugOf(organisationName)}_${randomBytes(24).toString('base64url')}`;
}

/**
 * The well-known token of a default organisation. Default tokens are derived from fixed text, so
 * they are the same on every start: they keep working across restarts with --state (which stores
 * only their hashes) and docs can show them. They are sandbox-only values and grant nothing real.
 */
export function defaultToken(organisationName: string): string {
  const digest = createHash('sha256')
    .update(`esign sandbox default token for ${organisationName}`)
    .digest('hex');
  return `sbx_${slugOf(organisationName)}_${digest.slice(0, 32)}`;
}

/** The admin secret for /_sandbox routes: random on every start, printed once. */
export function newAdminSecret(): string {
  return `sbx_admin_${randomBytes(24).toString('base64url')}`;
}

/** The token of an `Authorization: Bearer <token>` header, or undefined when missing or malformed. */
export function bearerToken(header: string | undefined): string | undefined {
  if (header === undefined) return undefined;
  const match = /^Bearer +([\x21-\x7e]+) *$/i.exec(header);
  return match?.[1];
}
