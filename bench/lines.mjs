// What the start-up and batch benchmarks measure side by side: the Node lines and the installs.
//
//   BENCH_NODES=/path/to/node:/other/node   the Node lines (default: this one, and Node 22, 24 and 26
//                                           from ~/.cache/esign-build/node<NN>, as .ci/run keeps them,
//                                           or /tmp/node<NN>, as `npm i --prefix /tmp/node<NN> node@<NN>`
//                                           puts them)
//   BENCH_BEFORE=/path/to/other/checkout    a second install (its bin/esign.js and dist/, built),
//                                           measured in the same rounds as "before"
//   BENCH_AFTER=/path/to/checkout           the install measured as "after" (default: this checkout)
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { delimiter, join, resolve } from 'node:path';

const root = resolve(import.meta.dirname, '..');

export const buildCache =
  process.env.ESIGN_BUILD_CACHE ||
  join(process.env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'esign-build');

export const versionOf = (node) => spawnSync(node, ['--version'], { encoding: 'utf8' }).stdout.trim();

/** The node binaries to measure on, each a different version. */
export function benchNodes() {
  const asked = (process.env.BENCH_NODES ?? '').split(delimiter).filter(Boolean);
  if (asked.length > 0) return asked;
  const found = [22, 24, 26]
    .map((major) =>
      [
        join(buildCache, `node${major}`, 'node_modules', 'node', 'bin', 'node'),
        `/tmp/node${major}/node_modules/node/bin/node`,
      ].find(existsSync),
    )
    .filter(Boolean);
  const versions = new Set([process.version]);
  const nodes = [process.execPath];
  for (const node of found) {
    const version = versionOf(node);
    if (!versions.has(version)) nodes.push(node);
    versions.add(version);
  }
  return nodes;
}

/** The installs measured: BENCH_BEFORE's ("before"), then this checkout or BENCH_AFTER's ("after"). */
export function installs() {
  const list = [{ name: 'after', bin: join(resolve(process.env.BENCH_AFTER ?? root), 'bin', 'esign.js') }];
  const before = process.env.BENCH_BEFORE;
  if (before) list.unshift({ name: 'before', bin: join(resolve(before), 'bin', 'esign.js') });
  for (const { bin } of list) {
    if (!existsSync(bin)) throw new Error(`${bin} is missing`);
  }
  return list;
}
