// Where and how a person checks whether an envelope exists after a create whose outcome is unknown
// (the request left, and no answer said what became of it), decided once: `envelope create`, each
// record of a batch and its closing advice, and the MCP tools say the same. The service's dashboard;
// or, where the base URL is loopback (where `esign sandbox` listens, and which has no dashboard),
// the sandbox's envelope list, with the command that shows it.
import { loopbackOrigin } from '../transport/loopback.js';

/** Where to look: "the dashboard", or the sandbox's envelope list for a loopback base URL. */
export function whereToCheckEnvelopes(baseUrl: string | undefined): string {
  const sandbox = loopbackOrigin(baseUrl);
  if (sandbox === undefined) return 'the dashboard';
  return `the sandbox's envelope list (curl -H 'Authorization: Bearer <admin secret>' ${sandbox}/_sandbox/envelopes; \`esign sandbox\` printed the admin secret)`;
}

/** The hint of an unknown outcome: what may be, where to check, and why before sending it again. */
export function unknownOutcomeHint(baseUrl: string | undefined): string {
  return `The outcome is unknown: the envelope may have been created. Check in ${whereToCheckEnvelopes(baseUrl)} whether it exists before you send it again, or the signatory may get two.`;
}
