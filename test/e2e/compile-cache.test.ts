// Node's compile cache (bin/esign.js) in esign's own folder of the user's cache: a cache file runs
// as code, so one that another user could have planted is never read, and a damaged one never
// crashes a run. The planted file here is a real attack: a cache made from other code of the same
// length, its header set to the checksum of esign's own file (Node checks that checksum, V8 only the
// length), which does run when it sits in a folder esign trusts.
import { execFileSync } from 'node:child_process';
import {
  chmodSync,
  chownSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import module from 'node:module';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { crc32 } from 'node:zlib';
import { beforeAll, describe, expect, it } from 'vitest';
import { CREATE_ARGS } from '../helpers/create-command.js';
import { runBin, type SpawnResult } from '../helpers/spawn.js';

const ROOT = resolve(import.meta.dirname, '../..');
/** Node >= 22.1: the runtime has a compile cache, and esign turns it on. */
const hasCompileCache = typeof (module as { enableCompileCache?: unknown }).enableCompileCache === 'function';
const isRoot = process.getuid?.() === 0;
const nobody = (() => {
  try {
    return Number(execFileSync('id', ['-u', 'nobody'], { encoding: 'utf8' }).trim());
  } catch {
    return undefined;
  }
})();

const PLANTED = 'planted code ran';

let install: string;
let mainJs: string;
let plainRun: SpawnResult;

/** A copy of the npm install, in a folder of its own (a cache is keyed by the file's path). */
beforeAll(async () => {
  install = join(mkdtempSync(join(tmpdir(), 'esign-cache-install-')), 'esign');
  for (const part of ['bin', 'dist', 'package.json'])
    cpSync(join(ROOT, part), join(install, part), { recursive: true });
  mainJs = join(install, 'dist', 'main.js');
  plainRun = await mainRun({ NODE_DISABLE_COMPILE_CACHE: '1' });
  expect(plainRun.code).toBe(0);
  expect(plainRun.stdout).toContain('01JD7X4ZQ8G1N6RVS0Y2MBKT3E');
});

/**
 * A run that goes through dist/main.js and sends nothing: a dry-run create. (`--help` is answered by
 * dist/quick.cjs, which never loads main.js, so its cache would hold nothing of main.js to plant.)
 */
const mainRun = (env: Record<string, string>) =>
  runBin([...CREATE_ARGS, '--dry-run'], { bin: join(install, 'bin', 'esign.js'), env });

/** A fresh folder for XDG_CACHE_HOME, private to this user. */
const cacheHome = () => mkdtempSync(join(tmpdir(), 'esign-xdg-'));

/** Every file under `dir`. */
const filesUnder = (dir: string) =>
  readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .map((name) => join(dir, name))
    .filter((path) => statSync(path).isFile());

/**
 * `<home>/esign` holding a cache for dist/main.js made from other code of the same length (its first
 * statement replaced by one that writes PLANTED to stderr), with the header's source checksum set to
 * that of the real dist/main.js.
 */
async function plantCache(home: string): Promise<void> {
  const original = readFileSync(mainJs);
  const firstStatement = original.indexOf(';') + 1;
  const attack = Buffer.from(
    `process.stderr.write(${JSON.stringify(`${PLANTED}\n`)});`.padEnd(firstStatement, ' '),
  );
  expect(attack.length).toBe(firstStatement);
  writeFileSync(mainJs, Buffer.concat([attack, original.subarray(firstStatement)]));
  try {
    await mainRun({ XDG_CACHE_HOME: home });
  } finally {
    writeFileSync(mainJs, original);
  }
  const attacked = crc32(Buffer.concat([attack, original.subarray(firstStatement)]));
  const made = filesUnder(join(home, 'esign')).filter((file) => {
    const header = readFileSync(file).subarray(0, 20);
    return [0, 4, 8, 12, 16].some((at) => header.readUInt32LE(at) === attacked);
  });
  expect(made).toHaveLength(1);
  const file = made[0] as string;
  const bytes = readFileSync(file);
  for (const at of [0, 4, 8, 12, 16])
    if (bytes.readUInt32LE(at) === attacked) bytes.writeUInt32LE(crc32(original), at);
  writeFileSync(file, bytes);
}

/** The run saw the real esign: exit 0, the same output as without a cache, nothing else on stderr. */
function expectPlainRun(result: SpawnResult): void {
  expect(result.stderr).not.toContain(PLANTED);
  expect(result.stderr).toBe('');
  expect(result.code).toBe(0);
  expect(result.stdout).toBe(plainRun.stdout);
}

describe('the compile cache', () => {
  it('is made in XDG_CACHE_HOME/esign, mode 0700, where Node has one (Node >= 22.1); nothing is made on Node 20', async () => {
    const home = cacheHome();
    expectPlainRun(await mainRun({ XDG_CACHE_HOME: home }));
    if (!hasCompileCache) {
      expect(readdirSync(home)).toEqual([]);
      return;
    }
    expect(statSync(join(home, 'esign')).mode & 0o777).toBe(0o700);
    expect(filesUnder(join(home, 'esign')).length).toBeGreaterThan(0);
    expectPlainRun(await mainRun({ XDG_CACHE_HOME: home }));
  });

  it('NODE_DISABLE_COMPILE_CACHE turns it off; a cache folder that cannot be made changes nothing the user sees', async () => {
    const home = cacheHome();
    expectPlainRun(await mainRun({ XDG_CACHE_HOME: home, NODE_DISABLE_COMPILE_CACHE: '1' }));
    expect(readdirSync(home)).toEqual([]);
    const notAFolder = join(cacheHome(), 'file');
    writeFileSync(notAFolder, 'not a folder');
    expectPlainRun(await mainRun({ XDG_CACHE_HOME: notAFolder }));
  });

  it.runIf(hasCompileCache)(
    'runs a planted cache file when it sits in a folder esign trusts (the attack is real)',
    async () => {
      const home = cacheHome();
      await plantCache(home);
      const attacked = await mainRun({ XDG_CACHE_HOME: home });
      expect(attacked.stderr).toContain(PLANTED);
    },
  );

  it.runIf(hasCompileCache && isRoot && nobody !== undefined)(
    "never reads a folder that belongs to another user, nor one reached through a link to another user's folder",
    async () => {
      const shared = cacheHome();
      await plantCache(shared);
      for (const path of [
        join(shared, 'esign'),
        ...readdirSync(join(shared, 'esign'), { recursive: true, encoding: 'utf8' }).map((name) =>
          join(shared, 'esign', name),
        ),
      ]) {
        chownSync(path, nobody as number, nobody as number);
      }
      expectPlainRun(await mainRun({ XDG_CACHE_HOME: shared }));
      const linked = cacheHome();
      symlinkSync(join(shared, 'esign'), join(linked, 'esign'));
      expectPlainRun(await mainRun({ XDG_CACHE_HOME: linked }));
      // Nothing was written into the other user's folder either.
      expect(filesUnder(join(shared, 'esign')).every((file) => statSync(file).uid === nobody)).toBe(true);
    },
  );

  it.runIf(isRoot && nobody !== undefined)(
    "makes nothing in another user's folder (sudo -E with that user's HOME): esign runs without a cache",
    async () => {
      const theirs = join(cacheHome(), 'home');
      mkdirSync(join(theirs, '.cache'), { recursive: true });
      chownSync(theirs, nobody as number, nobody as number);
      chownSync(join(theirs, '.cache'), nobody as number, nobody as number);
      expectPlainRun(await mainRun({ XDG_CACHE_HOME: join(theirs, '.cache') }));
      expectPlainRun(await mainRun({ XDG_CACHE_HOME: '', HOME: theirs }));
      expect(readdirSync(join(theirs, '.cache'))).toEqual([]);
    },
  );

  it.runIf(hasCompileCache)(
    'never reads a folder that group or others can write to, or one inside a folder others can replace it in',
    async () => {
      const writable = cacheHome();
      await plantCache(writable);
      chmodSync(join(writable, 'esign'), 0o770);
      expectPlainRun(await mainRun({ XDG_CACHE_HOME: writable }));

      const open = join(cacheHome(), 'open');
      mkdirSync(open);
      await plantCache(open);
      chmodSync(open, 0o777); // others may rename esign/ and put their own in its place
      expectPlainRun(await mainRun({ XDG_CACHE_HOME: open }));
      chmodSync(open, 0o1777); // sticky, as /tmp: only its owner may
      expect((await mainRun({ XDG_CACHE_HOME: open })).stderr).toContain(PLANTED);
    },
  );

  it('never crashes on a damaged cache: random bytes changed in every file, run after run', async () => {
    const home = cacheHome();
    expectPlainRun(await mainRun({ XDG_CACHE_HOME: home }));
    const random = seeded(30);
    for (let round = 0; round < 5; round++) {
      for (const file of existsSync(join(home, 'esign')) ? filesUnder(join(home, 'esign')) : []) {
        const bytes = readFileSync(file);
        for (let flip = 0; flip < 1 + (round % 3); flip++) {
          const at = Math.floor(random() * bytes.length);
          bytes[at] = (bytes[at] as number) ^ (1 + Math.floor(random() * 255));
        }
        writeFileSync(file, bytes);
      }
      expectPlainRun(await mainRun({ XDG_CACHE_HOME: home }));
    }
  });
});

/** A small seeded generator (mulberry32): the same flips on every run of the test. */
function seeded(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
