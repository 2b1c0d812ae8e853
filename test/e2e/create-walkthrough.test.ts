// `esign envelope create` at a real terminal (tmux) with things left out: the walk-through asks
// for them, shows what will be sent and asks once; Ctrl-C at any prompt and "No" send nothing. The
// sandbox's request log is the proof of what was (not) sent.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { RunningSandbox } from '../../src/sandbox/server.js';
import { shellQuote } from '../../src/text/shell.js';
import { BIN, freshConfigDir } from '../helpers/spawn.js';
import { hasTmux, openTerminal, type Terminal } from '../helpers/tmux.js';
import { ACME_OFFER, admin, startQuietSandbox, tokenOf } from '../sandbox/helpers.js';

let sandbox: RunningSandbox;
let project: string;
beforeAll(async () => {
  sandbox = await startQuietSandbox();
  project = mkdtempSync(join(tmpdir(), 'esign-walk-'));
  writeFileSync(
    join(project, '.esign.json'),
    JSON.stringify({
      templates: {
        'offer-letter': ACME_OFFER,
        nda: '01JD7X5B3M9T8W2HQ4K6N0PRSA',
        'offer-checked': {
          id: ACME_OFFER,
          fields: {
            company: { required: true, description: 'Legal name of the employer' },
            start_date: { required: true, description: 'First day', example: '2026-12-01' },
            salary: {},
          },
        },
      },
    }),
  );
});
afterAll(() => sandbox.close());
beforeEach(async () => {
  await admin(sandbox, 'DELETE', 'requests');
});

/** The creates the sandbox received since the test began. */
async function creates(): Promise<{ body?: unknown }[]> {
  const seen = (await admin(sandbox, 'GET', 'requests')).json as {
    requests: { path: string; body?: unknown }[];
  };
  return seen.requests.filter((r) => r.path.endsWith('/envelopes/create'));
}

/** A person's terminal, against the sandbox: a config of its own, the token, not CI. */
function terminalEnv(): Record<string, string> {
  return {
    ESIGN_CONFIG_DIR: freshConfigDir(),
    ESIGN_TOKEN: tokenOf(sandbox),
    ESIGN_BASE_URL: sandbox.baseUrl,
    // The test run itself may be in CI; the terminal in front of esign is not.
    CI: 'false',
    GITHUB_ACTIONS: '',
  };
}

/**
 * Leaves out each optional field the walk-through asks for (the sandbox's merge tags of the
 * template, or the project file's optional fields): Enter alone at each, in order.
 */
async function skipFields(terminal: Terminal, names: readonly string[]): Promise<void> {
  for (const name of names) {
    await terminal.waitFor(new RegExp(`${name}, optional: Enter alone leaves it out`));
    terminal.press('Enter');
  }
}

/** The merge tags of the sandbox's offer letter. */
const OFFER_TAGS = ['company', 'role', 'start_date', 'salary'];

function walk(name: string, args: string, env: Record<string, string> = {}): Terminal {
  return openTerminal(name, `${process.execPath} ${BIN} envelope create ${args}; echo "exit=$?"`, {
    cwd: project,
    env: { ...terminalEnv(), ...env },
  });
}

describe.skipIf(!hasTmux)('envelope create at a terminal, with things left out', () => {
  it('asks for the template, name and email (checked as typed), shows the request, and sends it once on yes', async () => {
    const terminal = walk('esign-walk-all', `--set ${shellQuote('company=Acme Corp')}`, { NO_COLOR: '1' });
    try {
      await terminal.waitFor(/Template/);
      expect(await terminal.waitFor(/offer-letter/)).toContain('nda');
      terminal.press('Enter');
      await terminal.waitFor(/full name/);
      terminal.typeLine('Ada Lovelace');
      await terminal.waitFor(/email/);
      terminal.typeLine('ada@');
      await terminal.waitFor(/Must be an email address/);
      terminal.typeLine('example.com');
      // The project file names the template by id alone: its fields are the sandbox's merge tags,
      // each asked (company is given already), each optional.
      await terminal.waitFor(/role, optional: Enter alone leaves it out/);
      terminal.typeLine('Engineer');
      await skipFields(terminal, ['start_date', 'salary']);
      const summary = await terminal.waitFor(/Send it\?/);
      expect(summary).toContain(`${ACME_OFFER} (offer-letter)`);
      expect(summary).toContain('Ada Lovelace <ada@example.com>');
      expect(summary).toMatch(/Merge data +company +Acme Corp/);
      expect(summary).toMatch(/role +Engineer/);
      expect(terminal.screens.join('\n')).not.toMatch(/company, optional/);
      expect(await creates()).toEqual([]);
      terminal.press('Enter');
      const final = await terminal.waitFor(/exit=\d+/);
      expect(final).toContain('Envelope created');
      expect(final).toContain('exit=0');
      // The frame the questions drew is closed before the envelope is shown.
      expect(final).toMatch(/└ +Sending it\.\n/);
      // NO_COLOR holds in the prompts too.
      expect(terminal.screens.join('\n')).not.toMatch(/\[3\dm/);
      const sent = await creates();
      expect(sent).toHaveLength(1);
      expect(JSON.parse(String(sent[0]?.body))).toMatchObject({
        template_id: ACME_OFFER,
        signatory: { name: 'Ada Lovelace', email: 'ada@example.com' },
        merge_data: { company: 'Acme Corp', role: 'Engineer' },
      });
    } finally {
      terminal.close();
    }
  });

  it('asks for each required field not given, with its description and example, and sends them', async () => {
    const terminal = walk(
      'esign-walk-fields',
      '--template offer-checked --name Ada --email ada@example.com --set company=Acme --yes',
    );
    try {
      const asked = await terminal.waitFor(/start_date/);
      expect(asked).toContain('start_date (First day)');
      expect(asked).toContain('2026-12-01');
      expect(terminal.screens.join('\n')).not.toContain('Legal name of the employer');
      terminal.typeLine('2027-01-04');
      // Its optional field is offered too, and left out.
      await skipFields(terminal, ['salary']);
      const final = await terminal.waitFor(/exit=\d+/);
      expect(final).toContain('exit=0');
      const sent = await creates();
      expect(sent).toHaveLength(1);
      expect(JSON.parse(String(sent[0]?.body)).merge_data).toEqual({
        company: 'Acme',
        start_date: '2027-01-04',
      });
    } finally {
      terminal.close();
    }
  });

  it('fields not known here are offered by name; none given: the confirmation says "Merge data none"', async () => {
    // Globex's token: the sandbox lists Globex's templates, so the fields of Acme's offer letter
    // are not known. The person is offered fields by name; No at the end sends nothing.
    const globex = { ESIGN_TOKEN: tokenOf(sandbox, 1), NO_COLOR: '1' };
    const none = walk('esign-walk-byname-none', '--template offer-letter --name Ada', globex);
    try {
      await none.waitFor(/email/);
      none.typeLine('ada@example.com');
      await none.waitFor(/Add a merge field\? Its name .*Enter alone: no merge data/);
      none.press('Enter');
      const summary = await none.waitFor(/Send it\?/);
      expect(summary).toMatch(/Merge data +none/);
      none.press('Right', 'Enter');
      expect(await none.waitFor(/exit=\d+/)).toContain('exit=2');
    } finally {
      none.close();
    }
    const named = walk('esign-walk-byname', '--template offer-letter --name Ada', globex);
    try {
      await named.waitFor(/email/);
      named.typeLine('ada@example.com');
      await named.waitFor(/Add a merge field\?/);
      named.typeLine('company');
      await named.waitFor(/Value of company/);
      named.typeLine('Acme Corp');
      await named.waitFor(/Enter alone: no more/);
      named.typeLine('company');
      await named.waitFor(/company is given already/);
      // The typed name is still on the line: cleared, then Enter alone ends the fields.
      for (let i = 0; i < 'company'.length; i++) named.press('BSpace');
      named.press('Enter');
      const summary = await named.waitFor(/Send it\?/);
      expect(summary).toMatch(/Merge data +company +Acme Corp/);
      named.press('Right', 'Enter');
      expect(await named.waitFor(/exit=\d+/)).toContain('exit=2');
    } finally {
      named.close();
    }
    expect(await creates()).toEqual([]);
  });

  it('what the flags give is checked before any question: a typo in --template or --email is told at once', async () => {
    for (const [name, args, told] of [
      ['template', '--template offer-leter', /no template named 'offer-leter'|offer-leter/],
      ['email', '--template offer-letter --email ada@', /email/],
    ] as const) {
      const terminal = walk(`esign-walk-given-${name}`, args);
      try {
        const final = await terminal.waitFor(/exit=\d+/);
        expect(final).toContain('exit=2');
        expect(final).toMatch(told);
        expect(terminal.screens.join('\n')).not.toContain('full name');
      } finally {
        terminal.close();
      }
    }
    expect(await creates()).toEqual([]);
  });

  it('a template id typed at the prompt is checked there, as --template checks it: the typo is told at once, nothing lost', async () => {
    const elsewhere = mkdtempSync(join(tmpdir(), 'esign-walk-noproject-'));
    const terminal = openTerminal(
      'esign-walk-typed-id',
      `${process.execPath} ${BIN} envelope create --set company=Acme; echo "exit=$?"`,
      { cwd: elsewhere, env: { ...terminalEnv(), NO_COLOR: '1' } },
    );
    try {
      await terminal.waitFor(/Template id/);
      terminal.typeLine('01JD7X4ZQ8G1N6RVS0Y2MBKT3U');
      const told = await terminal.waitFor(/'U' at character 26/);
      expect(told).not.toContain('full name');
      terminal.press('BSpace');
      terminal.typeLine('E');
      await terminal.waitFor(/full name/);
      terminal.typeLine('Ada');
      await terminal.waitFor(/email/);
      terminal.typeLine('ada@example.com');
      await skipFields(terminal, ['role', 'start_date', 'salary']);
      await terminal.waitFor(/Send it\?/);
      terminal.press('Enter');
      expect(await terminal.waitFor(/exit=\d+/)).toContain('exit=0');
      expect(await creates()).toHaveLength(1);
    } finally {
      terminal.close();
    }
  });

  it('under LANG=C every question is drawn in ASCII, as every symbol esign draws', async () => {
    const terminal = walk('esign-walk-ascii', '--name Ada --email ada@example.com', {
      LANG: 'C',
      LC_ALL: '',
      LC_CTYPE: '',
    });
    try {
      await terminal.waitFor(/Template/);
      terminal.press('Enter');
      await skipFields(terminal, OFFER_TAGS);
      const summary = await terminal.waitFor(/Send it\?/);
      expect(summary).toMatch(/Merge data +none/);
      terminal.press('Right', 'Enter');
      expect(await terminal.waitFor(/exit=\d+/)).toContain('exit=2');
      const shown = terminal.screens.find((screen) => /[^\x20-\x7e\n]/.test(screen));
      expect(shown, 'a screen that is not ASCII').toBeUndefined();
    } finally {
      terminal.close();
    }
  });

  it('answering No sends nothing: exit 2', async () => {
    const terminal = walk('esign-walk-no', '--template offer-letter --name Ada');
    try {
      await terminal.waitFor(/email/);
      terminal.typeLine('ada@example.com');
      await skipFields(terminal, OFFER_TAGS);
      await terminal.waitFor(/Send it\?/);
      terminal.press('Left', 'Enter');
      terminal.press('Right', 'Enter');
      const final = await terminal.waitFor(/exit=\d+/);
      expect(final).toContain('exit=2');
      expect(final).toContain('you answered no');
      expect(final).toMatch(/└ +Not sent\.\n/);
      expect(await creates()).toEqual([]);
    } finally {
      terminal.close();
    }
  });

  it('--yes sends without the confirmation', async () => {
    const terminal = walk('esign-walk-yes', '--template offer-letter --email ada@example.com --yes');
    try {
      await terminal.waitFor(/full name/);
      terminal.typeLine('Ada Lovelace');
      await skipFields(terminal, OFFER_TAGS);
      const final = await terminal.waitFor(/exit=\d+/);
      expect(final).toContain('exit=0');
      expect(terminal.screens.join('\n')).not.toContain('Send it?');
      expect(await creates()).toHaveLength(1);
    } finally {
      terminal.close();
    }
  });

  const prompts: [string, string, RegExp][] = [
    ['template', '--name Ada --email ada@example.com', /Template/],
    ['name', '--template offer-letter --email ada@example.com', /full name/],
    ['email', '--template offer-letter --name Ada', /email/],
    ['confirmation', '--template offer-letter --email ada@example.com', /Send it\?/],
    [
      'required field',
      '--template offer-checked --name Ada --email ada@example.com --set company=Acme',
      /start_date/,
    ],
  ];
  for (const [prompt, args, shown] of prompts) {
    it.concurrent(`Ctrl-C at the ${prompt} prompt: exit 130, nothing sent`, async () => {
      const terminal = walk(`esign-walk-c-${prompt}`, args);
      try {
        if (prompt === 'confirmation') {
          await terminal.waitFor(/full name/);
          terminal.typeLine('Ada');
          await skipFields(terminal, OFFER_TAGS);
        }
        await terminal.waitFor(shown);
        terminal.press('C-c');
        const final = await terminal.waitFor(/exit=\d+/);
        expect(final).toContain('exit=130');
        expect(final).toContain('Nothing was sent');
        expect(await creates()).toEqual([]);
      } finally {
        terminal.close();
      }
    });
  }

  it('--no-input and ESIGN_NO_INPUT=1 ask nothing: the missing flags are listed, exit 2', async () => {
    for (const [name, args, env] of [
      ['flag', '--template offer-letter --no-input', {}],
      ['env', '--template offer-letter', { ESIGN_NO_INPUT: '1' }],
    ] as const) {
      const terminal = walk(`esign-walk-noinput-${name}`, args, env);
      try {
        const final = await terminal.waitFor(/exit=\d+/);
        expect(final).toContain('exit=2');
        expect(final).toMatch(/signatory\.name|--name/);
        expect(terminal.screens.join('\n')).not.toContain('full name');
      } finally {
        terminal.close();
      }
    }
    expect(await creates()).toEqual([]);
  });
});

describe.skipIf(!hasTmux)('envelope batch at a terminal, with duplicate records', () => {
  const duplicates = () => {
    const file = join(project, `dupes-${Math.random().toString(36).slice(2)}.jsonl`);
    const record = { signatory: { name: 'Ada', email: 'ada@example.com' }, merge_data: { company: 'Acme' } };
    writeFileSync(file, `${JSON.stringify(record)}\n${JSON.stringify(record)}\n`);
    return file;
  };
  const batch = (name: string, extra: string) =>
    openTerminal(
      name,
      `${process.execPath} ${BIN} envelope batch ${duplicates()} --template offer-letter --output ${join(project, `${name}.jsonl`)} ${extra}; echo "exit=$?"`,
      {
        cwd: project,
        env: terminalEnv(),
      },
    );

  it('asks before sending them; No (the default) sends nothing: exit 2', async () => {
    const terminal = batch('esign-dupes-no', '');
    try {
      const question = await terminal.waitFor(/Send the duplicate anyway\?/);
      expect(question).toContain('line 2: same template, signatory email and merge data as line 1');
      terminal.press('Enter');
      await terminal.waitFor(/Send the other 1 record, leaving out the duplicate\?/);
      terminal.press('Enter');
      const final = await terminal.waitFor(/exit=\d+/);
      expect(final).toContain('exit=2');
      expect(final).toContain('Nothing was sent');
      expect(final).toContain('--allow-duplicates');
      expect(await creates()).toEqual([]);
    } finally {
      terminal.close();
    }
  });

  it('No, then yes to "all but the duplicates": the other records are sent, the duplicates left out', async () => {
    const output = join(project, 'esign-dupes-but.jsonl');
    const terminal = batch('esign-dupes-but', '');
    try {
      await terminal.waitFor(/Send the duplicate anyway\?/);
      terminal.press('Enter');
      await terminal.waitFor(/Send the other 1 record, leaving out the duplicate\?/);
      terminal.press('Left', 'Enter');
      const final = await terminal.waitFor(/exit=\d+/);
      expect(final).toContain('Sending 1 record; the duplicate left out, not sent.');
      expect(final).toContain('exit=0');
    } finally {
      terminal.close();
    }
    const sent = await creates();
    expect(sent).toHaveLength(1);
    const lines = readFileSync(output, 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(lines.map((result) => [result.line, result.ok])).toEqual([[1, true]]);
  });

  it('Yes sends them; --yes sends them without asking', async () => {
    const asked = batch('esign-dupes-yes', '');
    try {
      await asked.waitFor(/Send the duplicate anyway\?/);
      asked.press('Left', 'Enter');
      expect(await asked.waitFor(/exit=\d+/)).toContain('exit=0');
    } finally {
      asked.close();
    }
    expect(await creates()).toHaveLength(2);
    const told = batch('esign-dupes-flag', '--yes');
    try {
      expect(await told.waitFor(/exit=\d+/)).toContain('exit=0');
      expect(told.screens.join('\n')).not.toContain('anyway?');
    } finally {
      told.close();
    }
    expect(await creates()).toHaveLength(4);
  });
});
