// Accessible mode through the built binary at a real terminal (tmux): what a screen reader would
// read is what the pane holds. Every screen seen is the one before it with lines added below (no
// line is ever redrawn), questions are plain and numbered, and no symbol carries meaning alone.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { RunningSandbox } from '../../src/sandbox/server.js';
import { BIN, freshConfigDir, runBin } from '../helpers/spawn.js';
import { hasTmux, openTerminal, type Terminal } from '../helpers/tmux.js';
import { ACME_OFFER, admin, startQuietSandbox, tokenOf } from '../sandbox/helpers.js';

let sandbox: RunningSandbox;
let project: string;
beforeAll(async () => {
  sandbox = await startQuietSandbox({ latencyMs: 300 });
  project = mkdtempSync(join(tmpdir(), 'esign-a11y-'));
  writeFileSync(
    join(project, '.esign.json'),
    JSON.stringify({ templates: { 'offer-letter': ACME_OFFER, nda: '01JD7X5B3M9T8W2HQ4K6N0PRSA' } }),
  );
});
afterAll(() => sandbox.close());
beforeEach(async () => {
  await admin(sandbox, 'DELETE', 'requests');
});

async function creates(): Promise<{ body?: unknown }[]> {
  const seen = (await admin(sandbox, 'GET', 'requests')).json as {
    requests: { path: string; body?: unknown }[];
  };
  return seen.requests.filter((r) => r.path.endsWith('/envelopes/create'));
}

function terminalEnv(extra: Record<string, string> = {}): Record<string, string> {
  return {
    ESIGN_CONFIG_DIR: freshConfigDir(),
    ESIGN_TOKEN: tokenOf(sandbox),
    ESIGN_BASE_URL: sandbox.baseUrl,
    CI: 'false',
    GITHUB_ACTIONS: '',
    LANG: 'C.UTF-8',
    ...extra,
  };
}

function esignAt(name: string, args: string, env: Record<string, string>): Terminal {
  return openTerminal(name, `${process.execPath} ${BIN} ${args}; echo "exit=$?"`, {
    cwd: project,
    env,
    rows: 60,
  });
}

/** The lines of a screen, without the empty ones below the last written. */
function linesOf(screen: string): string[] {
  const lines = screen.split('\n').map((line) => line.trimEnd());
  while (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
  return lines;
}

/**
 * Nothing was redrawn: each screen holds the one before it, line for line, with lines added below
 * (the last line of a screen may still be growing: a line being typed, or written in two parts).
 */
function expectAppendOnly(screens: readonly string[]): void {
  for (let i = 1; i < screens.length; i++) {
    const before = linesOf(screens[i - 1] as string);
    const after = linesOf(screens[i] as string);
    const last = before.length - 1;
    if (last < 0) continue;
    expect(after.slice(0, last), `screen ${i} redrew an earlier line`).toEqual(before.slice(0, last));
    expect((after[last] ?? '').startsWith(before[last] as string)).toBe(true);
  }
}

/** Symbols that carry meaning, the spinner's frames and the prompt library's frame. */
const GLYPHS = /[✓→·⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏◆◇│└┌●○]/;

describe.skipIf(!hasTmux)('accessible mode at a terminal', () => {
  it('asks plain, numbered questions, tells a wrong answer on its own line, never redraws, and sends once', async () => {
    const terminal = esignAt(
      'esign-a11y-walk',
      'envelope create --set company=Acme',
      terminalEnv({ ACCESSIBLE: '1' }),
    );
    try {
      const asked = await terminal.waitFor(/Type its number, 1 to 2/);
      expect(asked).toContain('1: offer-letter, 01JD7X4ZQ8G1N6RVS0Y2MBKT3E');
      expect(asked).toContain('2: nda, 01JD7X5B3M9T8W2HQ4K6N0PRSA');
      terminal.typeLine('5');
      await terminal.waitFor(/'5' is not one of the numbers 1 to 2\. Try again\./);
      terminal.typeLine('1');
      await terminal.waitFor(/Signatory's full name\?/);
      terminal.typeLine('Ada Lovelace');
      await terminal.waitFor(/Signatory's email\?/);
      terminal.typeLine('ada@');
      await terminal.waitFor(/Must be an email address, like ada@example\.com\. Try again\./);
      terminal.typeLine('ada@example.com');
      // The sandbox's merge tags of the offer letter not given, each optional: left out.
      for (const field of ['role', 'start_date', 'salary']) {
        await terminal.waitFor(new RegExp(`${field}, optional: Enter alone leaves it out\\?`));
        terminal.typeLine('');
      }
      const summary = await terminal.waitFor(/Send it\? Type y for yes or n for no/);
      expect(summary).toContain('This envelope will be sent:');
      expect(summary).toContain('Ada Lovelace <ada@example.com>');
      expect(await creates()).toEqual([]);
      terminal.typeLine('y');
      const final = await terminal.waitFor(/exit=\d+/);
      expect(final).toContain('exit=0');
      // The spinner, as lines: one at the start, one at the end; then the envelope.
      expect(final).toMatch(
        /Sending it\.\nCreating envelope\.\nCreating envelope: done\.\nEnvelope created\n/,
      );
      expectAppendOnly(terminal.screens);
      expect(terminal.screens.join('\n')).not.toMatch(GLYPHS);
      expect(await creates()).toHaveLength(1);
    } finally {
      terminal.close();
    }
  });

  it('"Send it?" takes an explicit y: an Enter typed ahead of it is dropped, Enter alone asks again', async () => {
    const terminal = esignAt(
      'esign-a11y-typeahead',
      'envelope create --template nda --name Ada --set counterparty=Acme --set effective_date=2027-01-04',
      terminalEnv({ ESIGN_ACCESSIBLE: '1' }),
    );
    try {
      await terminal.waitFor(/Signatory's email\?/);
      // The last answer and a second Enter, typed at once, before the summary is shown.
      terminal.typeLine('ada@example.com');
      terminal.press('Enter');
      const asked = await terminal.waitFor(/Send it\? Type y for yes or n for no, then press Enter\./);
      expect(asked).not.toContain('Enter alone');
      // Enter alone is no answer: the question is asked again, nothing is sent.
      terminal.typeLine('');
      await terminal.waitFor(/Type y or n\. Try again\./);
      expect(await creates()).toEqual([]);
      terminal.typeLine('n');
      const final = await terminal.waitFor(/exit=\d+/);
      expect(final).toContain('Not sent.');
      expect(final).toContain('exit=2');
      expectAppendOnly(terminal.screens);
      expect(await creates()).toEqual([]);
    } finally {
      terminal.close();
    }
  });

  it('ESIGN_ACCESSIBLE=1 turns it on too; Ctrl-D at a question stops, nothing sent (exit 130)', async () => {
    const terminal = esignAt(
      'esign-a11y-eof',
      'envelope create --template nda',
      terminalEnv({ ESIGN_ACCESSIBLE: '1' }),
    );
    try {
      await terminal.waitFor(/Signatory's full name\?/);
      terminal.press('C-d');
      const final = await terminal.waitFor(/exit=\d+/);
      expect(final).toContain('Stopped; nothing was sent.');
      expect(final).toContain('exit=130');
      expectAppendOnly(terminal.screens);
      expect(await creates()).toEqual([]);
    } finally {
      terminal.close();
    }
  });

  it('the config key turns it on for every command: a create says it starts and ends, in plain lines', async () => {
    const env = terminalEnv();
    const set = await runBin(['config', 'set', 'accessible', 'true'], { env });
    expect(set.code).toBe(0);
    expect((await runBin(['config', 'get', 'accessible'], { env })).stdout).toBe('true\n');
    const terminal = esignAt(
      'esign-a11y-config',
      'envelope create --template nda --name Ada --email ada@example.com',
      env,
    );
    try {
      const final = await terminal.waitFor(/exit=\d+/);
      expect(final).toContain('exit=0');
      expect(final).toMatch(/^Creating envelope\.\nCreating envelope: done\.\nEnvelope created\n/);
      expectAppendOnly(terminal.screens);
      expect(terminal.screens.join('\n')).not.toMatch(GLYPHS);
    } finally {
      terminal.close();
    }
    // ESIGN_ACCESSIBLE=0 turns it off over the config: the spinner is back (its frames redraw).
    const off = esignAt(
      'esign-a11y-off',
      'envelope create --template nda --name Ada --email ada@example.com',
      { ...env, ESIGN_ACCESSIBLE: '0' },
    );
    try {
      const final = await off.waitFor(/exit=\d+/);
      expect(final).not.toContain('Creating envelope: done.');
      expect(final).toContain('✓ Envelope created');
    } finally {
      off.close();
    }
  });

  it('a batch says what it sends and asks about duplicates plainly; No sends nothing', async () => {
    const records = join(project, 'people.jsonl');
    const ada = { signatory: { name: 'Ada', email: 'ada@example.com' } };
    writeFileSync(records, `${JSON.stringify(ada)}\n${JSON.stringify(ada)}\n`);
    const terminal = esignAt(
      'esign-a11y-batch',
      `envelope batch people.jsonl --template nda --output ${join(mkdtempSync(join(tmpdir(), 'esign-a11y-out-')), 'r.jsonl')}`,
      terminalEnv({ ACCESSIBLE: '1' }),
    );
    try {
      const asked = await terminal.waitFor(/Send the duplicate anyway\? Type y for yes or n for no/);
      expect(asked).toContain('(Enter alone: no)');
      terminal.typeLine('');
      // No: the other record without the duplicate is offered, and No again sends nothing.
      await terminal.waitFor(
        /Send the other 1 record, leaving out the duplicate\? Type y for yes or n for no/,
      );
      terminal.typeLine('');
      const final = await terminal.waitFor(/exit=\d+/);
      expect(final).toContain('Nothing was sent.');
      expect(final).toContain('exit=2');
      expectAppendOnly(terminal.screens);
      expect(await creates()).toEqual([]);
    } finally {
      terminal.close();
    }
    writeFileSync(
      records,
      `${JSON.stringify(ada)}\n${JSON.stringify({ signatory: { name: 'Bo', email: 'bo@example.com' } })}\n`,
    );
    const sending = esignAt(
      'esign-a11y-batch-send',
      'envelope batch people.jsonl --template nda',
      terminalEnv({ ACCESSIBLE: '1' }),
    );
    try {
      const final = await sending.waitFor(/exit=\d+/);
      expect(final).toContain('Sending 2 records; a progress line follows every 30 seconds.');
      expect(final).toMatch(/Batch: 2 created, 0 failed/);
      expect(final).toContain('exit=0');
      expectAppendOnly(sending.screens);
      expect(sending.screens.join('\n')).not.toMatch(GLYPHS);
    } finally {
      sending.close();
    }
  });
});

describe('esign help accessibility', () => {
  it('says what accessible mode changes and how to turn it on', async () => {
    const result = await runBin(['help', 'accessibility']);
    expect(result.code).toBe(0);
    for (const text of [
      'ACCESSIBLE=1',
      'ESIGN_ACCESSIBLE=1',
      'esign config set accessible true',
      'every\n    30 seconds',
    ]) {
      expect(result.stdout).toContain(text);
    }
  });
});
