// Nothing that runs after a create can turn the envelope into a failure: --qr with a signing URL
// longer than a code holds, --open with one longer than an argument may be, an opener that fails,
// a code wider than the terminal. Each is a warning, the envelope is printed, exit 0 (a script that
// retries on a non-zero exit would send a second envelope). And --open hands $BROWSER the very URL
// printed, and --json --qr draws the code on stderr. Through the built binary, against a scripted
// server whose envelope carries the signing URL each test needs.
import { chmodSync, existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openerFor } from '../../src/io/open-url.js';
import { shellQuote } from '../../src/text/shell.js';
import { CREATE_ARGS } from '../helpers/create-command.js';
import { ok, useScriptedServer } from '../helpers/scripted-server.js';
import { BIN, freshConfigDir, runBin } from '../helpers/spawn.js';
import { hasTmux, openTerminal } from '../helpers/tmux.js';
import { waitFor } from '../helpers/wait-for.js';

const ID = '01JD7X4ZQ8G1N6RVS0Y2MBKT3F';
const server = useScriptedServer();

const env = (extra: Record<string, string> = {}) => ({
  ESIGN_TOKEN: 'tok_live_9c2f4e6a8b0d1f3e5a7c9e1b3d5f7a9c',
  ESIGN_BASE_URL: server.baseUrl,
  ESIGN_CONFIG_DIR: freshConfigDir(),
  GITHUB_ACTIONS: '',
  ...extra,
});

/** A signing URL of `length` characters. */
const longUrl = (length: number) => {
  const head = `https://sign.example.com/s/${ID}?t=`;
  return head + 'a'.repeat(length - head.length);
};

/** A browser stand-in that writes its arguments, one a line, to `seen`, then exits with `status`. */
function browser(status = 0): { command: string; seen: string } {
  const dir = mkdtempSync(join(tmpdir(), 'esign-browser-'));
  const seen = join(dir, 'seen.txt');
  const command = join(dir, 'browser.sh');
  writeFileSync(
    command,
    `#!/bin/sh\nprintf '%s\\n' "$@" > ${seen}.tmp && mv ${seen}.tmp ${seen}\nexit ${status}\n`,
  );
  chmodSync(command, 0o755);
  return { command, seen };
}

describe('after the envelope exists, nothing fails the create', () => {
  it('--qr with a signing URL longer than a QR code holds: a warning, the envelope printed, exit 0', async () => {
    const url = longUrl(3000);
    server.script(ok({ envelope_id: ID, signing_url: url }));
    const result = await runBin([...CREATE_ARGS, '-q', '--qr'], { env: env() });
    expect(result.stderr).not.toContain('Unexpected internal error');
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(`${url}\n`);
    expect(result.stderr).toContain(
      'warning: --qr drew no code: the signing URL is 3000 characters long, more than a QR code holds (about 2,953). The envelope was created.',
    );
    expect(server.requests).toHaveLength(1);
  });

  it('--open with a signing URL longer than an argument may be (E2BIG): a warning, exit 0', async () => {
    const url = longUrl(200_000);
    const { command, seen } = browser();
    server.script(ok({ envelope_id: ID, signing_url: url }));
    const result = await runBin([...CREATE_ARGS, '--json', '--open', '--verbose'], {
      env: env({ BROWSER: command }),
    });
    expect(result.stderr).not.toContain('Unexpected internal error');
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout).signing_url).toBe(url);
    expect(result.stderr).toContain(
      "warning: could not open the signing URL (the signing URL (200000 characters) is longer than a command's argument may be); the envelope was created.",
    );
    expect(existsSync(seen)).toBe(false);
  });

  it('--open --json with a browser that cannot start: the warning reaches stderr (no --verbose needed), exit 0', async () => {
    server.script(ok({ envelope_id: ID }));
    const missing = join(mkdtempSync(join(tmpdir(), 'esign-no-browser-')), 'no-such-browser');
    const result = await runBin([...CREATE_ARGS, '--json', '--open'], { env: env({ BROWSER: missing }) });
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout).envelope_id).toBe(ID);
    expect(result.stderr).toContain(
      `warning: could not open the signing URL (${missing} was not found); the envelope was created.`,
    );
  });

  it('--open whose opener exits with a failure (xdg-open exits 3 with no browser): the exit status is waited for and warned of', async () => {
    const { command } = browser(3);
    server.script(ok({ envelope_id: ID }));
    const result = await runBin([...CREATE_ARGS, '-q', '--open'], { env: env({ BROWSER: command }) });
    expect(result.code).toBe(0);
    expect(result.stderr).toContain(
      `warning: could not open the signing URL (${command} exited with status 3); the envelope was created.`,
    );
  });

  it("--open with BROWSER='cmd %s': $&, $`, $' and $$ in the URL reach the browser as printed", async () => {
    const url = `https://sign.example.com/s/${ID}?a=$&b=$\`c=$'d=$$e=%s`;
    const { command, seen } = browser();
    server.script(ok({ envelope_id: ID, signing_url: url }));
    const result = await runBin([...CREATE_ARGS, '-q', '--open'], {
      env: env({ BROWSER: `${command} --new-tab=%s` }),
    });
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(`${url}\n`);
    await waitFor(() => existsSync(seen), 'the browser to have run');
    expect(readFileSync(seen, 'utf8')).toBe(`--new-tab=${url}\n`);
    expect(openerFor(url, { BROWSER: 'firefox %s' }, 'linux').args).toEqual([url]);
  });

  it('--json --qr: stdout is the JSON object alone, the code is drawn on stderr', async () => {
    server.script(ok({ envelope_id: ID }));
    const result = await runBin([...CREATE_ARGS, '--json', '--qr'], { env: env() });
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout).envelope_id).toBe(ID);
    expect(result.stderr).toMatch(/^[█▀▄ ]{20,}$/m);
    expect(result.stderr).toContain('Scan to sign: the code holds the signing URL.');
  });
});

describe.skipIf(!hasTmux)('--qr on a terminal narrower than the code', () => {
  it('says so instead of drawing a code that wraps (ASCII on 40 columns); the envelope is printed, exit 0', async () => {
    server.script(ok({ envelope_id: ID }));
    const cli = `${process.execPath} ${BIN} ${CREATE_ARGS.map(shellQuote).join(' ')} --qr`;
    const terminal = openTerminal('esign-qr-narrow', `${cli}; echo "exit=$?"`, {
      env: { ...env(), LANG: 'C', LC_ALL: '', LC_CTYPE: '', CI: 'false' },
      columns: 40,
      rows: 30,
    });
    try {
      const screen = await terminal.waitFor(/exit=\d+/);
      expect(screen).toContain('exit=0');
      // The pane wraps long lines at 40 columns: compared without white space.
      const said = screen.replace(/\s+/g, '');
      expect(said).toContain(ID);
      expect(said).toContain('warning:--qrdrewnocode:thecodeis66columnswideandtheterminal40');
      expect(said).toContain('itwouldwrapandcouldnotbescanned.Widentheterminalto66columnsormore');
      expect(screen).not.toMatch(/##/);
    } finally {
      terminal.close();
    }
  });
});
