// Tab completion in the real shells: bash (with the bash-completion package, installed as
// docs/install.md says), zsh (from fpath with compinit, first Tab in a new shell) and fish, each in a tmux terminal,
// with the built binary on PATH and a config that holds two profiles.
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { BIN } from '../helpers/spawn.js';
import { hasTmux, openTerminal, type Terminal } from '../helpers/tmux.js';

const has = (shell: string) => spawnSync(shell, ['-c', 'exit 0']).status === 0;
const BASH_COMPLETION = '/usr/share/bash-completion/bash_completion';
const hasBashCompletion = existsSync(BASH_COMPLETION);

const ULID = '01JD7X4ZQ8G1N6RVS0Y2MBKT3E';

let home: string;
let work: string;
let env: Record<string, string>;

beforeAll(() => {
  home = mkdtempSync(join(tmpdir(), 'esign-shells-'));
  work = join(home, 'work');
  const bin = join(home, 'bin');
  const config = join(home, 'config');
  for (const dir of [work, bin, config]) mkdirSync(dir, { recursive: true });
  writeFileSync(join(bin, 'esign'), `#!/bin/sh\nexec "${process.execPath}" "${BIN}" "$@"\n`);
  chmodSync(join(bin, 'esign'), 0o755);
  writeFileSync(
    join(config, 'config.json'),
    JSON.stringify({ profiles: { alpha: { base_url: 'https://a.example/api/v1' }, sandbox: {} } }),
    { mode: 0o600 },
  );
  writeFileSync(join(work, 'hires.csv'), 'signatory_name,signatory_email\n');
  writeFileSync(join(work, 'defaults.json'), '{}');
  writeFileSync(
    join(work, '.esign.json'),
    JSON.stringify({
      templates: {
        'offer-letter': { id: ULID, fields: { company: { required: true }, start_date: {} } },
        // Field names a shell would run if completion put them on the line unquoted (no white
        // space in them: ${IFS} makes the space when the shell runs them).
        evil: { id: '01JD7X5B3M9T8W2HQ4K6N0PRSA', fields: { '$(touch${IFS}pwned)': {} } },
        mixed: {
          id: '01JD7X6C8PZ5R3V9YQ1TGM4HWB',
          fields: { '`touch${IFS}pwned2`': {}, 'a;touch${IFS}pwned3': {}, plain_field: {} },
        },
      },
    }),
  );
  env = {
    HOME: home,
    PATH: `${bin}:/usr/local/bin:/usr/bin:/bin`,
    ESIGN_CONFIG_DIR: config,
    XDG_CONFIG_HOME: join(home, '.config'),
    XDG_DATA_HOME: join(home, '.local/share'),
    TERM: 'xterm',
  };
  // Installed exactly as docs/install.md says (`esign completion --help` shows the same lines).
  const install = spawnSync(
    'sh',
    [
      '-c',
      [
        'mkdir -p ~/.local/share/bash-completion/completions',
        'esign completion bash > ~/.local/share/bash-completion/completions/esign',
        'mkdir -p ~/.zfunc && esign completion zsh > ~/.zfunc/_esign',
        'mkdir -p ~/.config/fish/completions && esign completion fish > ~/.config/fish/completions/esign.fish',
      ].join(' && '),
    ],
    { env, encoding: 'utf8' },
  );
  expect(install.stderr).toBe('');
  expect(install.status).toBe(0);
  writeFileSync(join(home, '.bashrc'), `PS1='$ '\n. ${BASH_COMPLETION}\n`);
  writeFileSync(
    join(home, '.zshrc'),
    "PROMPT='%% '\nfpath+=(~/.zfunc)\nautoload -Uz compinit && compinit -u\n",
  );
});

afterAll(() => {
  spawnSync('rm', ['-rf', home]);
});

interface Shell {
  name: string;
  command: string;
  available: boolean;
}

const shells: Shell[] = [
  { name: 'bash', command: 'bash --rcfile ~/.bashrc -i', available: has('bash') && hasBashCompletion },
  { name: 'zsh', command: 'zsh -i', available: has('zsh') },
  {
    name: 'fish',
    command:
      'fish --no-config -i -C "function fish_prompt; echo \'> \'; end; source ~/.config/fish/completions/esign.fish"',
    available: has('fish'),
  },
];

// A machine without the tools skips these tests; it says so once, in the test output, with how to
// run them (`npm test` on a fresh machine would otherwise pass with them silently skipped).
const missing = [
  ...(hasTmux ? [] : ['tmux']),
  ...(has('bash') ? [] : ['bash']),
  ...(hasBashCompletion ? [] : ['bash-completion']),
  ...(has('zsh') ? [] : ['zsh']),
  ...(has('fish') ? [] : ['fish']),
];
if (missing.length > 0) {
  console.warn(
    `note: Tab completion in the real shells is not tested here: ${missing.join(', ')} not installed, so ` +
      `the tests that need them are skipped. To run them, install them (Debian/Ubuntu: apt-get install ` +
      `tmux bash-completion zsh fish; macOS: brew install tmux bash-completion@2 zsh fish) and run ` +
      `npx vitest run test/e2e/completion-shells.test.ts, or bash .ci/run, which installs them.`,
  );
}

/** The line being edited: the last non-empty line of the screen that starts with the command. */
function editedLine(screen: string): string {
  const lines = screen.split('\n').filter((line) => line.includes('esign '));
  return (lines[lines.length - 1] ?? '').trimEnd();
}

describe.each(shells)('Tab completion in $name', (shell) => {
  let term: Terminal | undefined;
  const open = async () => {
    term = openTerminal(`complete-${shell.name}`, shell.command, { env, cwd: work });
    await term.waitFor(/^[$%>]\s*$/m);
    return term;
  };
  /** Types, presses Tab, and returns the edited line once the screen shows `expected`. */
  const tab = async (typed: string, expected: RegExp, t?: Terminal) => {
    t ??= await open();
    t.type(typed);
    await t.waitFor(new RegExp(typed.replace(/[.*+?^${}()|[\]\\-]/g, '\\$&')));
    t.press('Tab');
    const screen = await t.waitFor(expected, 20_000);
    return editedLine(screen);
  };
  /** The next Tab in the same shell: clears the line first (Ctrl-U), as starting a shell costs a second. */
  const tabAgain = async (typed: string, expected: RegExp) => {
    const t = term as Terminal;
    t.press('C-u');
    await t.waitFor(/^[$%>]\s*$/m);
    return tab(typed, expected, t);
  };

  it.skipIf(!hasTmux || !shell.available)('completes a subcommand at depth 2 on the first Tab', async () => {
    expect(await tab('esign envelope cr', /esign envelope create/)).toMatch(/esign envelope create\s*$/);
  });

  it.skipIf(!hasTmux || !shell.available)('completes a flag of a subcommand', async () => {
    expect(await tab('esign envelope create --tem', /--template/)).toMatch(/--template\s*$/);
  });

  it.skipIf(!hasTmux || !shell.available)(
    "completes 'config s' to set, not to top-level commands",
    async () => {
      const line = await tab('esign config s', /esign config set/);
      expect(line).toMatch(/esign config set\s*$/);
      expect(line).not.toMatch(/status|sandbox/);
    },
  );

  it.skipIf(!hasTmux || !shell.available)('completes profile names from the config', async () => {
    expect(await tab('esign --profile sa', /--profile sandbox/)).toMatch(/--profile sandbox\s*$/);
  });

  it.skipIf(!hasTmux || !shell.available)('completes files after --data and for the batch file', async () => {
    expect(await tab('esign envelope create --data def', /defaults\.json/)).toMatch(/defaults\.json\s*$/);
    term?.close();
    expect(await tab('esign envelope batch hi', /hires\.csv/)).toMatch(/hires\.csv\s*$/);
  });

  it.skipIf(!hasTmux || !shell.available)('completes the value of --flag=value after the =', async () => {
    expect(await tab('esign envelope batch hires.csv --format=c', /--format=csv/)).toMatch(
      /esign envelope batch hires\.csv --format=csv\s*$/,
    );
    expect(await tabAgain('esign envelope create --data=def', /--data=defaults\.json/)).toMatch(
      /--data=defaults\.json\s*$/,
    );
  });

  it.skipIf(!hasTmux || !shell.available)(
    'completes template names of .esign.json, in both forms',
    async () => {
      expect(await tab('esign envelope create --template off', /--template offer-letter/)).toMatch(
        /--template offer-letter\s*$/,
      );
      expect(await tabAgain('esign envelope create --template=off', /--template=offer-letter/)).toMatch(
        /--template=offer-letter\s*$/,
      );
    },
  );

  it.skipIf(!hasTmux || !shell.available)(
    'completes --set to a field of the chosen template and its =, with no space after it',
    async () => {
      const typed = 'esign envelope create --template offer-letter --set com';
      expect(await tab(typed, /--set company=/)).toMatch(/--set company=$/);
      // The value goes right after the =: a space there would make it a word of its own.
      (term as Terminal).type('Acme');
      const screen = await (term as Terminal).waitFor(/--set company=\s*Acme/);
      expect(editedLine(screen)).toMatch(/--set company=Acme$/);
    },
  );

  it.skipIf(!hasTmux || !shell.available)(
    '--set never offers a field name that the shell would run: only plain words are offered',
    async () => {
      const t = await open();
      t.type('esign envelope create --template evil --set ');
      await t.waitFor(/--template evil --set\s*$/m);
      // Tab, then a letter: the shell handles keys in order, so the letter shows after what Tab put
      // on the line. Enter then runs the line: a name put there unquoted would run `touch`.
      t.press('Tab');
      t.type('Z');
      expect(editedLine(await t.waitFor(/Z\s*$/m))).toMatch(/--set Z$/);
      t.press('Enter');
      await t.waitFor(/error:/);
      expect(existsSync(join(work, 'pwned'))).toBe(false);
      await t.waitFor(/^[$%>]\s*$/m);
      t.type('esign envelope create --template mixed --set ');
      await t.waitFor(/--template mixed --set\s*$/m);
      t.press('Tab');
      expect(editedLine(await t.waitFor(/--set plain_field=/))).toMatch(/--set plain_field=$/);
    },
  );

  it.skipIf(!hasTmux || !shell.available || shell.name !== 'zsh')(
    'zsh lines the descriptions up in a column (_describe)',
    async () => {
      const t = await open();
      t.type('esign envelope ');
      await t.waitFor(/esign envelope\s*$/m);
      t.press('Tab');
      const screen = await t.waitFor(/batch.*--.*\n.*create.*--|create.*--.*\n.*batch.*--/);
      const columns = screen
        .split('\n')
        .filter((line) => /^(batch|create)\b/.test(line))
        .map((line) => line.indexOf(' -- '));
      expect(columns).toHaveLength(2);
      expect(columns[0]).toBeGreaterThan(0);
      expect(columns[0]).toBe(columns[1]);
    },
  );

  it.skipIf(!hasTmux || !shell.available)('offers the sandbox its own flags, not --profile', async () => {
    // --port is the only flag of the sandbox that starts --p once --profile is not offered.
    expect(await tab('esign sandbox --p', /esign sandbox --port/)).toMatch(/esign sandbox --port\s*$/);
  });

  afterEach(() => term?.close());
});
