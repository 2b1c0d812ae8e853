// --qr and --open after a create, through the built binary against the sandbox: the QR code drawn on
// stderr decodes to the signing URL (stdout stays what -q promises); --open hands the URL to
// $BROWSER; neither can fail the create.
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import jsQRModule from 'jsqr';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openableUrl, openerFor } from '../../src/io/open-url.js';
import { qrLines } from '../../src/io/qr.js';
import type { RunningSandbox } from '../../src/sandbox/server.js';
import { CREATE_ARGS } from '../helpers/create-command.js';
import { freshConfigDir, runBin } from '../helpers/spawn.js';
import { waitFor } from '../helpers/wait-for.js';
import { startQuietSandbox, tokenOf } from '../sandbox/helpers.js';

// jsqr is CommonJS: its function is module.exports, also as .default.
type Decoder = (data: Uint8ClampedArray, width: number, height: number) => { data: string } | null;
const jsQR = (jsQRModule as unknown as { default: Decoder }).default;

let sandbox: RunningSandbox;
beforeAll(async () => {
  sandbox = await startQuietSandbox();
});
afterAll(() => sandbox.close());

const env = () => ({
  ESIGN_CONFIG_DIR: freshConfigDir(),
  ESIGN_TOKEN: tokenOf(sandbox),
  ESIGN_BASE_URL: sandbox.baseUrl,
  GITHUB_ACTIONS: '',
});

/** Reads a drawn code back: each module a 4×4 square, drawn (light) modules white. */
function decode(lines: string[], unicode: boolean): string | undefined {
  const rows: boolean[][] = [];
  for (const line of lines) {
    if (unicode) {
      const chars = [...line];
      rows.push(chars.map((c) => c === '█' || c === '▀'));
      rows.push(chars.map((c) => c === '█' || c === '▄'));
    } else {
      rows.push(Array.from({ length: line.length / 2 }, (_, i) => line.slice(2 * i, 2 * i + 2) === '##'));
    }
  }
  const scale = 4;
  const width = (rows[0]?.length ?? 0) * scale;
  const height = rows.length * scale;
  const pixels = new Uint8ClampedArray(width * height * 4);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const value = rows[Math.floor(y / scale)]?.[Math.floor(x / scale)] ? 255 : 0;
      pixels.set([value, value, value, 255], (y * width + x) * 4);
    }
  }
  return jsQR(pixels, width, height)?.data;
}

const codeLines = (stderr: string) =>
  stderr.split('\n').filter((line) => /^[█▀▄ ]{20,}$|^(##| {2}){20,}$/.test(line));

describe('--qr', () => {
  it('draws the signing URL on stderr as a code that decodes to it; stdout is the URL alone (-q)', async () => {
    const result = await runBin([...CREATE_ARGS, '-q', '--qr'], { env: env() });
    expect(result.code).toBe(0);
    const url = result.stdout.trim();
    expect(result.stdout).toBe(`${url}\n`);
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/sign\//);
    expect(decode(codeLines(result.stderr), true)).toBe(url);
  });

  it('the ASCII drawing decodes too', () => {
    const url = 'https://esign.example.com/sign/01JD7X4ZQ8G1N6RVS0Y2MBKT3E?t=abc';
    const lines = qrLines(url, false);
    expect(lines.join('')).toMatch(/^[# ]+$/);
    expect(decode(lines, false)).toBe(url);
    expect(decode(qrLines(url, true), true)).toBe(url);
  });

  it('draws nothing under GitHub Actions (the URL is masked in the log), and says why', async () => {
    const result = await runBin([...CREATE_ARGS, '-q', '--qr'], {
      env: { ...env(), GITHUB_ACTIONS: 'true' },
    });
    expect(result.code).toBe(0);
    expect(codeLines(result.stderr)).toEqual([]);
    expect(result.stderr).toContain('--qr draws nothing under GitHub Actions');
  });
});

describe('--open', () => {
  it('hands the signing URL to $BROWSER (its own arguments kept) and still prints the envelope', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'esign-open-'));
    const browser = join(dir, 'browser.sh');
    const seen = join(dir, 'seen.txt');
    writeFileSync(browser, `#!/bin/sh\nprintf '%s\\n' "$@" > ${seen}.tmp && mv ${seen}.tmp ${seen}\n`, {
      mode: 0o755,
    });
    const result = await runBin([...CREATE_ARGS, '--json', '--open'], {
      env: { ...env(), BROWSER: `${browser} --new-window` },
    });
    expect(result.code).toBe(0);
    const envelope = JSON.parse(result.stdout);
    await waitFor(() => existsSync(seen), 'the browser command to have run');
    expect(readFileSync(seen, 'utf8')).toBe(`--new-window\n${envelope.signing_url}\n`);
  });

  it('a browser that cannot start is a warning, never a failed create', async () => {
    const result = await runBin([...CREATE_ARGS, '-q', '--open'], {
      env: { ...env(), BROWSER: '/nonexistent/browser' },
    });
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/sign\/\S+\n$/);
    expect(result.stderr).toContain(
      'warning: could not open the signing URL (/nonexistent/browser was not found)',
    );
  });

  it('only http(s) links are opened, and none that could be read as an option', () => {
    expect(openableUrl('https://esign.example.com/sign/1')).toBe(true);
    expect(openableUrl('http://127.0.0.1:4010/sign/1')).toBe(true);
    for (const url of [
      'file:///etc/passwd',
      'javascript:alert(1)',
      '--help',
      'not a url',
      'smb://host/share',
    ]) {
      expect(openableUrl(url)).toBe(false);
    }
    expect(openerFor('https://x.example/a', {}, 'darwin')).toEqual({
      command: 'open',
      args: ['https://x.example/a'],
    });
    expect(openerFor('https://x.example/a?b&c', {}, 'win32').args).toEqual([
      'url.dll,FileProtocolHandler',
      'https://x.example/a?b&c',
    ]);
    expect(openerFor('https://x.example/a', {}, 'linux').command).toBe('xdg-open');
    expect(openerFor('https://x.example/a', { BROWSER: 'firefox -P work %s' }, 'linux')).toEqual({
      command: 'firefox',
      args: ['-P', 'work', 'https://x.example/a'],
    });
  });
});
