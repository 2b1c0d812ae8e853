// How an MCP client starts the esign running now, decided once for `esign mcp install`: a command
// that works from every way esign is installed, whatever PATH the client has (a desktop app does
// not see the shell's).
//
//   installed as                         the entry runs
//   the single executable                the executable itself
//   npm install -g, npm install, a       node (this one, by its full path) and the package's
//     checkout, the MCP Bundle             bin/esign.js, by its real path (never npm's bin link)
//   npx / npm exec                       npx -y <name>@<version> (npx next to this node)
//
// npx runs esign from its cache (~/.npm/_npx/<hash>), a folder npm may empty or replace at any
// time: a path into it would stop working later, so the entry asks npx again, for the same version
// the person ran (never a newer one they have not seen: the server can send envelopes), and with
// -y, as the client has no terminal to answer npx's question.
import { existsSync, readFileSync, realpathSync } from 'node:fs';
import { dirname, join, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The command and the arguments before esign's own (`mcp …`). */
export interface EsignCommand {
  readonly command: string;
  readonly args: readonly string[];
}

/** Whether this process is the single executable (Node's single executable application). */
function isSingleExecutable(): boolean {
  try {
    return process.getBuiltinModule('node:sea')?.isSea?.() === true;
  } catch {
    return false;
  }
}

interface Package {
  readonly root: string;
  readonly name: string;
  readonly version: string;
}

/**
 * The esign package this code was loaded from: the nearest folder above it with esign's
 * package.json and bin/esign.js, by its real path (npm's links followed).
 */
function ownPackage(): Package | undefined {
  let at = dirname(realpathSync(fileURLToPath(import.meta.url)));
  for (;;) {
    const manifest = join(at, 'package.json');
    if (existsSync(manifest) && existsSync(join(at, 'bin', 'esign.js'))) {
      try {
        const { name, version } = JSON.parse(readFileSync(manifest, 'utf8')) as Record<string, unknown>;
        if (typeof name === 'string' && typeof version === 'string') return { root: at, name, version };
      } catch {
        // not a package.json esign can read: look further up
      }
    }
    const up = dirname(at);
    if (up === at) return undefined;
    at = up;
  }
}

/** npx, beside the node running now (where npm installs it), else the one on the PATH. */
function npx(platform: NodeJS.Platform): EsignCommand {
  // A .cmd file is started only through the shell on Windows; the clients start `cmd /c npx`.
  if (platform === 'win32') return { command: 'cmd', args: ['/c', 'npx'] };
  const beside = join(dirname(process.execPath), 'npx');
  return { command: existsSync(beside) ? beside : 'npx', args: [] };
}

/** The command that starts this esign from anywhere, or undefined when it cannot be told. */
export function thisEsign(platform: NodeJS.Platform): EsignCommand | undefined {
  if (isSingleExecutable()) return { command: process.execPath, args: [] };
  const own = ownPackage();
  if (!own) return undefined;
  if (own.root.split(sep).includes('_npx')) {
    const runner = npx(platform);
    return { command: runner.command, args: [...runner.args, '-y', `${own.name}@${own.version}`] };
  }
  return { command: process.execPath, args: [join(own.root, 'bin', 'esign.js')] };
}
