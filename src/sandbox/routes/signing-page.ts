// The signing page a signatory would open, as the sandbox shows it: what would be signed, by whom,
// until when. Every value that came from a request or a seed goes through escapeHtml.

const HTML_ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => HTML_ESCAPES[c] as string);
}

export interface SigningPageView {
  envelopeId: string;
  organisation: string;
  templateName: string;
  templateId: string;
  status: string;
  /** Every merge tag of the template, in its order, with the value given (undefined when none was). */
  fields: { tag: string; value: string | undefined }[];
  signatory: { name: string; email: string; phone?: string };
  createdAt: Date;
  expiresAt: Date;
  expired: boolean;
}

const STYLE = `
  :root { color-scheme: light dark; --fg: #1d2430; --muted: #5b6473; --line: #d9dee7; --card: #fff; --bg: #f3f5f9; --accent: #2f5bd3; --warn: #9a5b00; }
  @media (prefers-color-scheme: dark) { :root { --fg: #e7eaf0; --muted: #a2abba; --line: #343b48; --card: #1b2029; --bg: #12161d; --accent: #86a5ff; --warn: #f0b45c; } }
  * { box-sizing: border-box; }
  body { margin: 0; font: 16px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--fg); background: var(--bg); }
  main { max-width: 44rem; margin: 2.5rem auto; padding: 0 1rem; }
  .banner { font-size: .85rem; color: var(--warn); border: 1px solid currentColor; border-radius: .5rem; padding: .5rem .75rem; margin-bottom: 1rem; }
  .card { background: var(--card); border: 1px solid var(--line); border-radius: .75rem; padding: 1.5rem 1.75rem; }
  h1 { font-size: 1.5rem; margin: 0 0 .25rem; }
  h2 { font-size: .8rem; text-transform: uppercase; letter-spacing: .06em; color: var(--muted); margin: 1.75rem 0 .5rem; }
  .from { color: var(--muted); margin: 0; }
  dl { display: grid; grid-template-columns: minmax(8rem, max-content) 1fr; gap: .35rem 1.25rem; margin: 0; }
  dt { color: var(--muted); }
  dd { margin: 0; overflow-wrap: anywhere; white-space: pre-wrap; }
  .empty { color: var(--muted); font-style: italic; }
  .status { display: inline-block; font-size: .8rem; padding: .1rem .55rem; border-radius: 999px; border: 1px solid var(--accent); color: var(--accent); }
  .expired { border-color: var(--warn); color: var(--warn); }
  button { margin-top: 1.75rem; font: inherit; padding: .6rem 1.4rem; border-radius: .5rem; border: 0; background: var(--accent); color: #fff; opacity: .55; cursor: not-allowed; }
  footer { color: var(--muted); font-size: .8rem; margin-top: 1rem; }
  code { font-size: .85em; }
`;

function layout(title: string, body: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>${escapeHtml(title)}</title>
<style>${STYLE}</style>
</head>
<body>
<main>
${body}
</main>
</body>
</html>
`;
}

const formatUtc = (date: Date) => `${date.toISOString().slice(0, 16).replace('T', ' ')} UTC`;

function row(label: string, value: string | undefined): string {
  const shown =
    value === undefined || value === '' ? '<span class="empty">not filled in</span>' : escapeHtml(value);
  return `<dt>${escapeHtml(label)}</dt><dd>${shown}</dd>`;
}

export function signingPage(view: SigningPageView): string {
  const status = view.expired ? 'expired' : view.status;
  const fields =
    view.fields.length === 0
      ? '<p class="empty">This template has no merge fields.</p>'
      : `<dl>${view.fields.map((f) => row(f.tag, f.value)).join('')}</dl>`;
  const signatory = [row('Name', view.signatory.name), row('Email', view.signatory.email)];
  if (view.signatory.phone !== undefined) signatory.push(row('Phone', view.signatory.phone));
  return layout(
    `${view.templateName} — sign`,
    `<p class="banner">Sandbox preview: this is what the signatory would see. Nothing can be signed here.</p>
<article class="card">
<h1>${escapeHtml(view.templateName)}</h1>
<p class="from">From ${escapeHtml(view.organisation)} · <span class="status${view.expired ? ' expired' : ''}">${escapeHtml(status)}</span></p>
<h2>Document fields</h2>
${fields}
<h2>Signatory</h2>
<dl>${signatory.join('')}</dl>
<h2>Envelope</h2>
<dl>${row('Created', formatUtc(view.createdAt))}${row(view.expired ? 'Expired' : 'Expires', formatUtc(view.expiresAt))}${row('Envelope ID', view.envelopeId)}${row('Template ID', view.templateId)}</dl>
<button type="button" disabled>Sign (disabled in the sandbox)</button>
</article>
<footer>Served by <code>esign sandbox</code>.</footer>`,
  );
}

export function notFoundPage(): string {
  return layout(
    'Envelope not found',
    `<article class="card">
<h1>Envelope not found</h1>
<p class="from">No envelope with this id exists in this sandbox. Check the link; envelopes made before a restart are kept only with <code>--state</code>.</p>
</article>`,
  );
}
