// Every temporary file and folder of a test run goes under one folder of its own, removed at the
// end: the tests make hundreds (config folders, inputs, results), and a machine keeps none of them.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { tmuxSocketPrefix } from './helpers/tmux.js';

export default function setup(): () => void {
  const root = mkdtempSync(join(tmpdir(), 'esign-tests-'));
  process.env.TMPDIR = root; // inherited by the test workers, and by the processes they spawn with it
  // esign's compile cache (bin/esign.js) too: a run's cache, shared by its tests, never the user's.
  process.env.XDG_CACHE_HOME = join(root, 'cache');
  return () => {
    rmSync(root, { recursive: true, force: true });
    stopTestTmuxServers(tmuxSocketPrefix(root));
  };
}

/** The tmux servers test processes started (test/helpers/tmux.ts keeps one up per process). */
function stopTestTmuxServers(prefix: string): void {
  const folder = join(process.env.TMUX_TMPDIR ?? '/tmp', `tmux-${process.getuid?.() ?? 0}`);
  let sockets: string[] = [];
  try {
    sockets = readdirSync(folder).filter((name) => name.startsWith(prefix));
  } catch {
    return;
  }
  for (const socket of sockets) {
    spawnSync('tmux', ['-L', socket, 'kill-server']);
    rmSync(join(folder, socket), { force: true });
  }
}
