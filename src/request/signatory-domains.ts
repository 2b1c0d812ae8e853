// Which signatories a sender may reach: `esign mcp --allow-domain` (repeatable) names the email
// domains an assistant may send to. Decided here, once: how a domain is written, and whether an
// address is at one. The create request path (src/envelope/create-request.ts) asks it, with every
// other check, before anything is sent.

/** An allowed domain: `example.com` (that domain only) or `*.example.com` (its subdomains too). */
export interface AllowedDomain {
  /** Lower case, without `*.`. */
  readonly domain: string;
  readonly subdomains: boolean;
}

const LABEL = '[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?';
const DOMAIN = new RegExp(`^(?:${LABEL}\\.)+[a-z]{2,63}$`);

/**
 * `text` as an allowed domain, or a problem in words. `@example.com` is taken as `example.com`;
 * upper case is folded. An address, a URL, or a bare top-level domain is refused.
 */
export function parseAllowedDomain(text: string): AllowedDomain | { problem: string } {
  const trimmed = text.trim().toLowerCase().replace(/^@/, '');
  const subdomains = trimmed.startsWith('*.');
  const domain = subdomains ? trimmed.slice(2) : trimmed;
  if (DOMAIN.test(domain)) return { domain, subdomains };
  const example = 'like example.com, or *.example.com for its subdomains too';
  if (trimmed.includes('@')) return { problem: `takes a domain, not an address (${example})` };
  if (trimmed.includes('/') || trimmed.includes(':'))
    return { problem: `takes a domain, not a URL (${example})` };
  return { problem: `must be a domain name, ${example}` };
}

/** How an allowed domain is written back: `example.com` or `*.example.com`. */
export function describeAllowedDomain(allowed: AllowedDomain): string {
  return allowed.subdomains ? `*.${allowed.domain}` : allowed.domain;
}

/** The domain of an email address, lower case (the part after the last `@`). */
export function emailDomain(email: string): string {
  return email.slice(email.lastIndexOf('@') + 1).toLowerCase();
}

/** Whether `email` is at one of the allowed domains. */
export function isAllowedEmail(email: string, allowed: readonly AllowedDomain[]): boolean {
  const domain = emailDomain(email);
  return allowed.some(
    (entry) => domain === entry.domain || (entry.subdomains && domain.endsWith(`.${entry.domain}`)),
  );
}
