import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { baseUrlWarning, normalizeBaseUrl } from '../../src/config/settings.js';
import { isLoopbackHost, lookupHost } from '../../src/transport/loopback.js';
import { nodeReadsSystemCaVariable } from '../../src/transport/network-error.js';
import { excludedByNoProxy, proxyFor, proxySettings } from '../../src/transport/proxy.js';

describe('lookupHost: localhost is resolved by esign itself, never by the system resolver', () => {
  it('is 127.0.0.1 in both forms the connector asks for', async () => {
    const one = await new Promise((resolve) =>
      lookupHost('LocalHost', {}, (error, address, family) => resolve({ error, address, family })),
    );
    expect(one).toEqual({ error: null, address: '127.0.0.1', family: 4 });
    const all = await new Promise((resolve) =>
      lookupHost('localhost', { all: true }, (error, address) => resolve({ error, address })),
    );
    expect(all).toEqual({ error: null, address: [{ address: '127.0.0.1', family: 4 }] });
    const literal = await new Promise((resolve) =>
      lookupHost('127.0.0.1', {}, (error, address) => resolve({ error, address })),
    );
    expect(literal).toEqual({ error: null, address: '127.0.0.1' });
  });
});

describe('isLoopbackHost: decided once', () => {
  it('is all of 127.0.0.0/8, ::1 and localhost, bracketed or not', () => {
    for (const host of [
      'localhost',
      'LOCALHOST',
      '127.0.0.1',
      '127.0.0.2',
      '127.255.255.254',
      '[::1]',
      '::1',
      '[::ffff:7f00:2]',
    ]) {
      expect(isLoopbackHost(host), host).toBe(true);
    }
    for (const host of [
      '128.0.0.1',
      '10.0.0.1',
      'localhost.example.com',
      // An absolute name: a resolver may send it to DNS, which answers what it likes (issue 31).
      'localhost.',
      'foo.localhost',
      'example.com',
      '[::2]',
      '::',
      '0.0.0.0',
      '127.0.0.1.nip.io',
    ]) {
      expect(isLoopbackHost(host), host).toBe(false);
    }
  });

  it('agrees with the URL parser for every IPv4 address', () => {
    fc.assert(
      fc.property(fc.ipV4(), (address) => {
        expect(isLoopbackHost(new URL(`http://${address}/`).hostname)).toBe(address.startsWith('127.'));
      }),
    );
  });

  it('lets http:// through for every loopback base URL, and for no other', () => {
    expect(normalizeBaseUrl('http://127.0.0.2:4010/api/v1', 'x')).toBe('http://127.0.0.2:4010/api/v1');
    expect(normalizeBaseUrl('http://[::ffff:127.0.0.1]:4010/api/v1', 'x')).toBe(
      'http://[::ffff:7f00:1]:4010/api/v1',
    );
    expect(() => normalizeBaseUrl('http://[::2]/api/v1', 'x')).toThrow('only for loopback');
  });
});

describe('normalizeBaseUrl', () => {
  it('refuses a base URL ending in a bare ? or #', () => {
    expect(() => normalizeBaseUrl('https://esign.example.com/api/v1?', 'x')).toThrow('no ? or #');
    expect(() => normalizeBaseUrl('https://esign.example.com/api/v1#', 'x')).toThrow('no ? or #');
  });
});

describe('baseUrlWarning', () => {
  it('warns about a base URL without the API prefix, and only then', () => {
    expect(baseUrlWarning('https://esign.example.com/api/v1')).toBeUndefined();
    expect(baseUrlWarning('http://127.0.0.1:4010/api/v2/')).toBeUndefined();
    expect(baseUrlWarning('https://esign.example.com')).toContain('use https://esign.example.com/api/v1');
    expect(baseUrlWarning('https://esign.example.com/v1')).toContain(
      'does not end in the API prefix /api/v1',
    );
  });
});

describe('proxy choice', () => {
  const remote = new URL('https://esign.example.com/api/v1/native/envelopes/create');

  it('takes HTTPS_PROXY (either case) for https, else HTTP_PROXY', () => {
    expect(proxyFor(remote, proxySettings({ HTTPS_PROXY: 'http://proxy:3128' }))?.display).toBe('proxy:3128');
    expect(proxyFor(remote, proxySettings({ https_proxy: 'http://p2' }))?.display).toBe('p2:80');
    expect(proxyFor(remote, proxySettings({ HTTP_PROXY: 'http://p3:8080' }))?.variable).toBe('HTTP_PROXY');
    expect(proxyFor(remote, proxySettings({}))).toBeUndefined();
  });

  it('never proxies loopback, whatever NO_PROXY says', () => {
    const settings = proxySettings({ HTTPS_PROXY: 'http://proxy:3128', HTTP_PROXY: 'http://proxy:3128' });
    for (const url of ['http://127.0.0.2:4010/api/v1', 'http://localhost/api/v1', 'http://[::1]:1/api/v1']) {
      expect(proxyFor(new URL(url), settings), url).toBeUndefined();
    }
  });

  it('honours NO_PROXY as written, * included', () => {
    const withNoProxy = (NO_PROXY: string) =>
      proxyFor(remote, proxySettings({ HTTPS_PROXY: 'http://proxy:3128', NO_PROXY }));
    expect(withNoProxy('*')).toBeUndefined();
    expect(withNoProxy('example.com')).toBeUndefined();
    expect(withNoProxy('.example.com')).toBeUndefined();
    expect(withNoProxy('*.example.com')).toBeUndefined();
    expect(withNoProxy('esign.example.com:443')).toBeUndefined();
    expect(withNoProxy('esign.example.com:8443')).toBeDefined();
    expect(withNoProxy('other.com, example.org')).toBeDefined();
    expect(excludedByNoProxy('a.com other.com', 'x.other.com', 443)).toBe(true);
  });

  it('a malformed variable is a usage error naming it, with no credentials in it', () => {
    expect(() => proxySettings({ HTTPS_PROXY: '127.0.0.1:9' })).toThrow(
      "HTTPS_PROXY: '127.0.0.1:9' is not a proxy URL",
    );
    expect(() => proxySettings({ http_proxy: 'not a url' })).toThrow(
      "http_proxy: 'not a url' is not a proxy URL",
    );
    expect(() => proxySettings({ HTTPS_PROXY: 'proxy:3128' })).toThrow('must start with http://');
    try {
      proxySettings({ HTTPS_PROXY: 'user:s3cret@proxy:3128' });
      expect.unreachable();
    } catch (error) {
      expect((error as Error).message).not.toContain('s3cret');
      expect((error as { exitCode: number }).exitCode).toBe(2);
    }
  });

  it('names the proxy by host and port, never its credentials', () => {
    const choice = proxyFor(remote, proxySettings({ HTTPS_PROXY: 'http://user:s3cret@proxy.corp:8080' }));
    expect(choice?.display).toBe('proxy.corp:8080');
    expect(choice?.uri).toContain('s3cret'); // undici needs them to answer the proxy's 407
  });
});

describe('NODE_USE_SYSTEM_CA', () => {
  it('is named only on the Node.js versions that read it (22.19+, 24.6+, 25+)', () => {
    expect(nodeReadsSystemCaVariable('20.19.0')).toBe(false);
    expect(nodeReadsSystemCaVariable('22.18.0')).toBe(false);
    expect(nodeReadsSystemCaVariable('22.19.0')).toBe(true);
    expect(nodeReadsSystemCaVariable('23.11.0')).toBe(false);
    expect(nodeReadsSystemCaVariable('24.5.0')).toBe(false);
    expect(nodeReadsSystemCaVariable('24.6.0')).toBe(true);
    expect(nodeReadsSystemCaVariable('25.0.0')).toBe(true);
  });
});
