// GET /sign/<envelope_id>: the page behind the signing URL shows what would be signed, escaped.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CreateEnvelopeResponse } from '../../src/api/schemas.js';
import { escapeHtml } from '../../src/sandbox/routes/signing-page.js';
import type { RunningSandbox } from '../../src/sandbox/server.js';
import { postCreate, request, startQuietSandbox, validBody } from './helpers.js';

let sandbox: RunningSandbox;
beforeAll(async () => {
  sandbox = await startQuietSandbox({ now: () => new Date('2026-03-01T09:30:00.000Z') });
});
afterAll(() => sandbox.close());

async function create(body: Record<string, unknown>): Promise<CreateEnvelopeResponse['data']> {
  const answer = await postCreate(sandbox, body);
  expect(answer.status).toBe(200);
  return (answer.json as CreateEnvelopeResponse).data;
}

describe('the signing page', () => {
  it('shows the template, the merged fields, the signatory and the expiry', async () => {
    const envelope = await create(
      validBody({
        merge_data: { company: 'Analytical Engines Ltd', start_date: '2026-04-01' },
        signatory: { name: 'Ada Lovelace', email: 'ada@example.com', phone: '+44 20 7946 0958' },
        expires_in_days: 14,
      }),
    );
    const page = await request(envelope.signing_url);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(page.headers.get('content-security-policy')).toContain("default-src 'none'");
    for (const text of [
      'Offer letter',
      'Acme Corp',
      'Analytical Engines Ltd',
      '2026-04-01',
      'Ada Lovelace',
      'ada@example.com',
      '+44 20 7946 0958',
      envelope.envelope_id,
    ]) {
      expect(page.text).toContain(text);
    }
    expect(page.text).toContain('2026-03-15 09:30 UTC'); // created 2026-03-01 09:30 + 14 days
    // every merge tag of the template is listed; the ones not given are marked as such
    expect(page.text).toMatch(/<dt>role<\/dt><dd><span class="empty">not filled in<\/span><\/dd>/);
    expect(page.text).toContain('<dt>salary</dt>');
  });

  it('escapes everything that came from the request', async () => {
    const envelope = await create(
      validBody({
        merge_data: { company: '<script>alert("x")</script>', role: `O'Brien & "Sons" <b>` },
        signatory: { name: '<img src=x onerror=alert(1)>', email: 'ada@example.com' },
      }),
    );
    const page = await request(envelope.signing_url);
    expect(page.text).not.toContain('<script>');
    expect(page.text).not.toContain('<img');
    expect(page.text).not.toContain('<b>');
    expect(page.text).toContain('&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;');
    expect(page.text).toContain('O&#39;Brien &amp; &quot;Sons&quot; &lt;b&gt;');
    expect(page.text).toContain('&lt;img src=x onerror=alert(1)&gt;');
  });

  it('is found with a lower-case id too, and answers HEAD', async () => {
    const envelope = await create(validBody());
    const lower = await request(`${sandbox.url}/sign/${envelope.envelope_id.toLowerCase()}`);
    expect(lower.status).toBe(200);
    const head = await request(envelope.signing_url, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.text).toBe('');
  });

  it('answers 404 with a page for unknown and malformed ids', async () => {
    for (const id of [
      '01ARZ3NDEKTSV4RRFFQ69G5FAV',
      'nope',
      '',
      '01ARZ3NDEKTSV4RRFFQ69G5FAV/extra',
      '%3Cscript%3E',
    ]) {
      const page = await request(`${sandbox.url}/sign/${id}`);
      expect(page.status, id).toBe(404);
      expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(page.text).toContain('Envelope not found');
      expect(page.text).not.toContain('<script>');
    }
  });

  it('answers 405 JSON for other methods', async () => {
    const envelope = await create(validBody());
    const answer = await request(envelope.signing_url, { method: 'POST' });
    expect(answer.status).toBe(405);
    expect(answer.headers.get('allow')).toBe('GET, HEAD');
    expect(answer.json).toHaveProperty('message');
  });
});

describe('escapeHtml', () => {
  it('escapes the five special characters', () => {
    expect(escapeHtml(`<a href="x" title='y'>&</a>`)).toBe(
      '&lt;a href=&quot;x&quot; title=&#39;y&#39;&gt;&amp;&lt;/a&gt;',
    );
  });
});
