// A merge field named `__proto__` is a merge field like any other: kept, and sent, from --set,
// --data, a CSV column and JSONL merge_data alike (never dropped by an object's prototype setter).
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/context.js';
import { ok, useScriptedServer } from '../helpers/scripted-server.js';

const TOKEN = 'tok_proto_7c1e3a5b9d2f4e6a';
const TEMPLATE = '01JD7X4ZQ8G1N6RVS0Y2MBKT3E';

const server = useScriptedServer();

function file(name: string, content: string): string {
  const path = join(mkdtempSync(join(tmpdir(), 'esign-proto-')), name);
  writeFileSync(path, content);
  return path;
}

const env = () => ({ ESIGN_TOKEN: TOKEN, ESIGN_BASE_URL: server.baseUrl });

/** The merge_data of each request the server received, as sent (own keys, in order). */
function sentMergeData(): Array<Array<[string, unknown]>> {
  return server.requests.map((request) => {
    const mergeData = JSON.parse(request.body).merge_data as Record<string, unknown>;
    return Object.keys(mergeData).map((key) => [key, Object.getOwnPropertyDescriptor(mergeData, key)?.value]);
  });
}

const create = ['envelope', 'create', '--template', TEMPLATE, '--name', 'Ada', '--email', 'ada@example.com'];

describe('a merge field named __proto__', () => {
  it('envelope create --set __proto__=… is sent', async () => {
    server.fallback(ok());
    const result = await runCli([...create, '--set', '__proto__=from set', '--set', 'company=AE'], {
      env: env(),
    });
    expect(result.code).toBe(0);
    expect(server.requests[0]?.body).toContain('"__proto__":"from set"');
    expect(sentMergeData()).toEqual([
      [
        ['__proto__', 'from set'],
        ['company', 'AE'],
      ],
    ]);
  });

  it('envelope create --data with a __proto__ key is sent, and --set wins over it', async () => {
    server.fallback(ok());
    const data = file('data.json', '{"company":"AE","__proto__":"from data","n":1}');
    expect((await runCli([...create, '--data', data], { env: env() })).code).toBe(0);
    expect(
      (await runCli([...create, '--data', data, '--set', '__proto__=set wins'], { env: env() })).code,
    ).toBe(0);
    expect(sentMergeData()).toEqual([
      [
        ['company', 'AE'],
        ['__proto__', 'from data'],
        ['n', '1'],
      ],
      [
        ['company', 'AE'],
        ['__proto__', 'set wins'],
        ['n', '1'],
      ],
    ]);
  });

  it('envelope create --dry-run shows it, and a __proto__ holding an object is refused like any other field', async () => {
    const dry = await runCli([...create, '--set', '__proto__=shown', '--dry-run'], { env: env() });
    expect(dry.code).toBe(0);
    expect(JSON.parse(dry.stdout).merge_data).toEqual(JSON.parse('{"__proto__":"shown"}'));
    const data = file('data.json', '{"__proto__":{"polluted":true}}');
    const bad = await runCli([...create, '--data', data], { env: env() });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain(`--data ${data}: merge field '__proto__' is an object`);
    expect(server.requests).toHaveLength(0);
  });

  it('envelope batch: a CSV column named __proto__ is sent', async () => {
    server.fallback(ok());
    const csv = file(
      'people.csv',
      'signatory_name,signatory_email,__proto__,company\nAda,ada@example.com,from csv,AE\n',
    );
    const result = await runCli(['envelope', 'batch', csv, '--template', TEMPLATE], { env: env() });
    expect(result.code).toBe(0);
    expect(sentMergeData()).toEqual([
      [
        ['__proto__', 'from csv'],
        ['company', 'AE'],
      ],
    ]);
  });

  it('envelope batch: JSONL merge_data with __proto__ is sent, and a --set default reaches records without it', async () => {
    server.fallback(ok());
    const jsonl = file(
      'people.jsonl',
      [
        '{"signatory":{"name":"Ada","email":"ada@example.com"},"merge_data":{"__proto__":"from jsonl"}}',
        '{"signatory":{"name":"Bob","email":"bob@example.com"}}',
      ].join('\n'),
    );
    const result = await runCli(
      [
        'envelope',
        'batch',
        jsonl,
        '--template',
        TEMPLATE,
        '--set',
        '__proto__=default',
        '--concurrency',
        '1',
      ],
      { env: env() },
    );
    expect(result.code).toBe(0);
    const byName = Object.fromEntries(
      server.requests.map((request, i) => [JSON.parse(request.body).signatory.name, sentMergeData()[i]]),
    );
    expect(byName).toEqual({ Ada: [['__proto__', 'from jsonl']], Bob: [['__proto__', 'default']] });
  });
});
