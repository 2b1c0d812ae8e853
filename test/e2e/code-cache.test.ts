// bin/esign.js loads dist/ with a V8 code cache of its own, kept per user and per command: the
// second start of a command compiles next to nothing. Watched from inside the process
// (test/helpers/process-watch.ts): what became of each bundle file's cache.
import { cpSync, mkdirSync, mkdtempSync, readdirSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { CREATE_ARGS, LIVE_TOKEN } from '../helpers/create-command.js';
import { ok, useScriptedServer } from '../helpers/scripted-server.js';
import { bundleProcessWatch, runBin, runWatched } from '../helpers/spawn.js';

let hook: string;

beforeAll(async () => {
  hook = await bundleProcessWatch();
});

const server = useScriptedServer();

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
  cache: Record<string, string>;
}

async function run(args: string[], env: Record<string, string>, bin?: string): Promise<Run> {
  const { watch, ...result } = await runWatched(hook, args, { env, bin });
  return { ...result, cache: watch.distCache };
}

const states = (r: Run) => [...new Set(Object.values(r.cache))];
const cacheHome = () => mkdtempSync(join(tmpdir(), 'esign-xdg-'));
const folderOf = (home: string) => {
  const root = join(home, 'esign', 'code-cache');
  const [only, ...more] = readdirSync(root);
  expect(more).toEqual([]);
  return join(root, only ?? '');
};

describe('the code cache', () => {
  it('is made by the first --help and used whole by the second, in XDG_CACHE_HOME/esign/code-cache', async () => {
    const home = cacheHome();
    const first = await run(['--help'], { XDG_CACHE_HOME: home });
    expect(first.code).toBe(0);
    expect(Object.keys(first.cache).some((url) => url.endsWith('/dist/main.js'))).toBe(true);
    expect(states(first)).toEqual(['none']);
    const folder = folderOf(home);
    expect(folder).toMatch(new RegExp(`${process.version}-${process.arch}-[0-9a-f]{8}$`));
    expect(statSync(folder).mode & 0o777).toBe(0o700);
    const files = readdirSync(folder);
    expect(files.length).toBe(Object.keys(first.cache).length);
    for (const file of files) {
      expect(file).toMatch(/\.js\.esign\.\d+-\d+-\d+$/);
      expect(statSync(join(folder, file)).mode & 0o777).toBe(0o600);
    }
    const second = await run(['--help'], { XDG_CACHE_HOME: home });
    expect(second.stdout).toBe(first.stdout);
    expect(states(second)).toEqual(['accepted']);
  });

  it('serves a create whole on its second run: files loaded before and after the V8 flag of the first request', async () => {
    const home = cacheHome();
    const env = { XDG_CACHE_HOME: home, ESIGN_BASE_URL: server.baseUrl, ESIGN_TOKEN: LIVE_TOKEN };
    server.script(ok(), ok());
    const first = await run([...CREATE_ARGS, '-q'], env);
    expect(first.code).toBe(0);
    const second = await run([...CREATE_ARGS, '-q'], env);
    expect(second.code).toBe(0);
    expect(second.stdout).toBe(first.stdout);
    expect(states(second)).toEqual(['accepted']);
    expect(Object.keys(second.cache)).toEqual(Object.keys(first.cache));
    // --help and the create keep caches of their own (a file both load is cached once for each).
    expect(readdirSync(folderOf(home)).every((f) => f.includes('.envelope-create.'))).toBe(true);
  });

  it('refuses a damaged cache file, runs as if there were none, and writes it again', async () => {
    const home = cacheHome();
    await run(['--help'], { XDG_CACHE_HOME: home });
    const folder = folderOf(home);
    for (const file of readdirSync(folder)) writeFileSync(join(folder, file), Buffer.alloc(64, 7));
    const damaged = await run(['--help'], { XDG_CACHE_HOME: home });
    expect(damaged.code).toBe(0);
    expect(damaged.stderr).toBe('');
    expect(states(damaged)).toEqual(['rejected']);
    expect(states(await run(['--help'], { XDG_CACHE_HOME: home }))).toEqual(['accepted']);
  });

  it('is never in the way: a cache folder that cannot be made changes nothing the user sees', async () => {
    const notAFolder = join(cacheHome(), 'file');
    writeFileSync(notAFolder, 'not a folder');
    const plain = await runBin(['--help']);
    const result = await runBin(['--help'], { env: { XDG_CACHE_HOME: notAFolder } });
    expect(result.code).toBe(0);
    expect(result.stderr).toBe('');
    expect(result.stdout).toBe(plain.stdout);
  });

  it('NODE_DISABLE_COMPILE_CACHE turns it off', async () => {
    const home = cacheHome();
    const result = await run(['--help'], { XDG_CACHE_HOME: home, NODE_DISABLE_COMPILE_CACHE: '1' });
    expect(result.code).toBe(0);
    expect(states(result)).toEqual(['none']);
    expect(readdirSync(home)).toEqual([]);
  });

  it("is kept per install: two installs (a checkout and a global install, the executable) never replace each other's", async () => {
    const other = join(mkdtempSync(join(tmpdir(), 'esign-other-install-')), 'esign');
    for (const part of ['bin', 'dist', 'package.json'])
      cpSync(join(resolve(import.meta.dirname, '../..'), part), join(other, part), { recursive: true });
    const otherBin = join(other, 'bin', 'esign.js');
    const home = cacheHome();
    expect(states(await run(['--help'], { XDG_CACHE_HOME: home }))).toEqual(['none']);
    expect(states(await run(['--help'], { XDG_CACHE_HOME: home }, otherBin))).toEqual(['none']);
    expect(states(await run(['--help'], { XDG_CACHE_HOME: home }))).toEqual(['accepted']);
    expect(states(await run(['--help'], { XDG_CACHE_HOME: home }, otherBin))).toEqual(['accepted']);
    expect(readdirSync(join(home, 'esign', 'code-cache'))).toHaveLength(2);
  });

  it("removes other installs' and Node versions' folders not written for 30 days, and past the 15 written last", async () => {
    const home = cacheHome();
    const root = join(home, 'esign', 'code-cache');
    const folder = (name: string, daysAgo: number) => {
      const path = join(root, name);
      mkdirSync(path, { recursive: true });
      writeFileSync(join(path, 'main.js.esign.1-2-3'), 'cache');
      const when = new Date(Date.now() - daysAgo * 24 * 3600 * 1000);
      utimesSync(path, when, when);
      return name;
    };
    const stale = folder('v18.20.0-x64-0123abcd', 31);
    const kept = Array.from({ length: 15 }, (_, i) => folder(`v22.1.${i}-x64-0123abcd`, i));
    const oldest = folder('v22.2.0-x64-0123abcd', 20);
    const notOurs = folder('notes', 400);
    expect((await run(['--help'], { XDG_CACHE_HOME: home })).code).toBe(0);
    const left = readdirSync(root);
    expect(left).toEqual(expect.arrayContaining([...kept, notOurs]));
    expect(left).not.toContain(stale);
    expect(left).not.toContain(oldest);
    expect(left).toHaveLength(17); // the 15, the folder of this run, and the one esign did not name
    // A run that only reads the cache removes nothing.
    folder('v18.20.1-x64-0123abcd', 31);
    expect(states(await run(['--help'], { XDG_CACHE_HOME: home }))).toEqual(['accepted']);
    expect(readdirSync(root)).toContain('v18.20.1-x64-0123abcd');
  });
});
