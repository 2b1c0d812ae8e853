// Under LANG=C the terminal reads bytes as ASCII: the built binary draws its symbols, its spinner
// and its progress line in ASCII there, in a real terminal (tmux).
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { json, ok, type Reply, useScriptedServer } from '../helpers/scripted-server.js';
import { BIN, freshConfigDir } from '../helpers/spawn.js';
import { hasTmux, openTerminal } from '../helpers/tmux.js';

const TOKEN = 'tok_ascii_5d7e9f1a3b591b3c';
const TEMPLATE = '01JD7X4ZQ8G1N6RVS0Y2MBKT3E';
const server = useScriptedServer({ resetAfterEach: false });

/** Anything outside printable ASCII (the Braille spinner, ✓, ·, →, …). */
const NOT_ASCII = /[^\x20-\x7e\n]/;

describe('a terminal under LANG=C', () => {
  it.skipIf(!hasTmux)('shows ASCII: the spinner, the created mark, the progress line', async () => {
    server.fallback({ ...ok(), delayMs: 300 } as Reply);
    const dir = freshConfigDir();
    const records = join(dir, '..', 'people.jsonl');
    writeFileSync(
      records,
      Array.from({ length: 6 }, (_, i) =>
        JSON.stringify({ signatory: { name: `P ${i}`, email: `p${i}@example.com` } }),
      ).join('\n'),
    );
    const env = `env -u CI -u LC_ALL -u LC_CTYPE LANG=C ESIGN_CONFIG_DIR=${dir} ESIGN_TOKEN=${TOKEN} ESIGN_BASE_URL=${server.baseUrl} TERM=xterm-256color`;
    const terminal = openTerminal(
      'esign-ascii',
      `${env} ${process.execPath} ${BIN} envelope create --template ${TEMPLATE} --name Ada --email a@b.co; echo "create=$?"; ` +
        `${env} ${process.execPath} ${BIN} envelope batch ${records} --template ${TEMPLATE} --concurrency 1 > /dev/null; echo "batch=$?"`,
    );
    try {
      const final = await terminal.waitFor(/batch=\d+/, 20_000);
      const all = terminal.screens.join('\n');
      expect(all).toMatch(/[-\\|/] Creating envelope\.\.\./);
      expect(final).toContain('OK Envelope created');
      expect(final).toContain('create=0');
      expect(all).toMatch(/[-\\|/] \d+\/6 done - 0 failed or unknown - [\d.]+\/s/);
      expect(final).toContain('batch=0');
      const shown = terminal.screens.find((screen) => NOT_ASCII.test(screen));
      expect(shown, 'a screen that is not ASCII').toBeUndefined();
    } finally {
      terminal.close();
      server.fallback(json(599, { message: 'unexpected' }));
    }
  });
});
