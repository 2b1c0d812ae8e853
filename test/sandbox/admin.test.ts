// /_sandbox/*: revoking and creating tokens while the sandbox runs (rotation rehearsal), and stats.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningSandbox } from '../../src/sandbox/server.js';
import { admin, postCreate, startQuietSandbox, tokenOf, validBody } from './helpers.js';

let sandbox: RunningSandbox;
beforeAll(async () => {
  sandbox = await startQuietSandbox();
});
afterAll(() => sandbox.close());

describe('admin routes', () => {
  it('need the admin secret: an organisation token, a wrong secret or none get 401', async () => {
    for (const bearer of [tokenOf(sandbox, 0), 'sbx_admin_wrong', '']) {
      const answer = await admin(sandbox, 'GET', 'stats', undefined, bearer);
      expect(answer.status).toBe(401);
      expect(answer.json).toEqual({ message: 'Unauthenticated.' });
    }
  });

  it('rotate a token: create a new one, switch to it, revoke the old one', async () => {
    const old = tokenOf(sandbox, 0);
    expect((await postCreate(sandbox, validBody(), { token: old })).status).toBe(200);

    const created = await admin(sandbox, 'POST', 'tokens', { organisation: 'Acme Corp', name: 'CI 2026' });
    expect(created.status).toBe(201);
    const fresh = (created.json as { token: string }).token;
    expect(fresh).toMatch(/^sbx_acme_corp_[A-Za-z0-9_-]{32}$/);
    expect(created.json).toMatchObject({ organisation: 'Acme Corp', name: 'CI 2026', revoked_at: null });
    expect((await postCreate(sandbox, validBody(), { token: fresh })).status).toBe(200);

    const revoked = await admin(sandbox, 'POST', 'tokens/revoke', { token: old });
    expect(revoked.status).toBe(200);
    expect(revoked.json).toMatchObject({
      organisation: 'Acme Corp',
      name: 'Sandbox token',
      revoked_at: expect.any(String),
    });
    expect(revoked.text).not.toContain(old);

    const refused = await postCreate(sandbox, validBody(), { token: old });
    expect(refused.status).toBe(401);
    expect(refused.text).toBe('{"message":"Unauthenticated."}');
    expect((await postCreate(sandbox, validBody(), { token: fresh })).status).toBe(200);
    // the other organisation is untouched
    expect(
      (
        await postCreate(sandbox, validBody({ template_id: '01JD7X6C8PZ5R3V9YQ1TGM4HWB', merge_data: {} }), {
          token: tokenOf(sandbox, 1),
        })
      ).status,
    ).toBe(200);

    const again = await admin(sandbox, 'POST', 'tokens/revoke', { token: old });
    expect(again.status).toBe(200);
    expect((again.json as { revoked_at: string }).revoked_at).toBe(
      (revoked.json as { revoked_at: string }).revoked_at,
    );
  });

  it('revoke by organisation and token name, and list tokens without their values', async () => {
    const created = await admin(sandbox, 'POST', 'tokens', { organisation: 'Globex Inc', name: 'temporary' });
    const value = (created.json as { token: string }).token;
    const revoked = await admin(sandbox, 'POST', 'tokens/revoke', {
      organisation: 'Globex Inc',
      name: 'temporary',
    });
    expect(revoked.status).toBe(200);
    expect((await postCreate(sandbox, validBody(), { token: value })).status).toBe(401);

    const list = await admin(sandbox, 'GET', 'tokens');
    expect(list.status).toBe(200);
    const globex = (
      list.json as {
        organisations: { name: string; tokens: { name: string; revoked_at: string | null }[] }[];
      }
    ).organisations[1];
    expect(globex?.tokens.map((t) => [t.name, t.revoked_at === null])).toEqual([
      ['Sandbox token', true],
      ['temporary', false],
    ]);
    expect(list.text).not.toContain(value);
    expect(list.text).not.toContain(tokenOf(sandbox, 1));
  });

  it('explain bad requests: unknown token or organisation, duplicate names, bad bodies', async () => {
    expect(
      (await admin(sandbox, 'POST', 'tokens/revoke', { token: 'sbx_unknown_0000000000000000' })).status,
    ).toBe(404);
    expect((await admin(sandbox, 'POST', 'tokens', { organisation: 'Initech', name: 'x' })).status).toBe(404);
    expect(
      (await admin(sandbox, 'POST', 'tokens', { organisation: 'Acme Corp', name: 'Sandbox token' })).status,
    ).toBe(409);
    const invalid = await admin(sandbox, 'POST', 'tokens/revoke', { nope: true });
    expect(invalid.status).toBe(422);
    expect((invalid.json as { message: string }).message).toMatch(/Send \{"token"/);
    expect((await admin(sandbox, 'GET', 'tokens/revoke')).status).toBe(405);
    expect((await admin(sandbox, 'GET', 'nothing-here')).status).toBe(404);
  });

  it('report stats: envelope count and memory', async () => {
    const before = sandbox.envelopeCount();
    const globexBody = validBody({ template_id: '01JD7X6C8PZ5R3V9YQ1TGM4HWB', merge_data: {} });
    expect((await postCreate(sandbox, globexBody, { token: tokenOf(sandbox, 1) })).status).toBe(200);
    const stats = await admin(sandbox, 'GET', 'stats');
    expect(stats.status).toBe(200);
    const json = stats.json as { envelopes: number; memory: { rss_bytes: number } };
    expect(json.envelopes).toBe(before + 1);
    expect(json.memory.rss_bytes).toBeGreaterThan(1024 * 1024);
  });
});
