// The project file is used only when it should be (issue 21): git's ownership rule, links that lead
// nowhere, files nested too deep, escaped file text, problems that only warn for commands that do
// not use templates, the wording of a bad template name, and the project file guide's samples together.
import {
  chmodSync,
  chownSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { distrustReason } from '../../src/project/trust.js';
import { runCli } from '../helpers/context.js';
import { useScriptedServer } from '../helpers/scripted-server.js';
import { freshConfigDir, runBin } from '../helpers/spawn.js';

const TOKEN = 'tok_live_trust_4b8d2f6a1c3e5a7b';
const OFFER = '01JD7X4ZQ8G1N6RVS0Y2MBKT3E';
const OTHER = '01JF2K8W0R3M7Q5N9T1V4XBYCD';
const NOBODY = 65534;
const isRoot = process.geteuid?.() === 0;

const server = useScriptedServer();

/** A repository holding `.esign.json`, and a nested folder to run from. */
function repository(project: unknown): { root: string; nested: string; file: string } {
  const root = mkdtempSync(join(tmpdir(), 'esign-trust-'));
  const nested = join(root, 'services', 'hiring');
  mkdirSync(nested, { recursive: true });
  const file = join(root, '.esign.json');
  writeFileSync(file, typeof project === 'string' ? project : JSON.stringify(project));
  return { root, nested, file };
}

const status = (cwd: string, env: Record<string, string> = {}) =>
  runCli(['status', '--json'], { cwd, env: { ESIGN_TOKEN: TOKEN, ...env } });

const projectIn = (result: { stdout: string }) => JSON.parse(result.stdout).project_file?.path ?? null;

describe('trust: git ownership rule', () => {
  it('the rule itself: owner, sudo, writable file, open folder, sticky folder, link owner', () => {
    const user = { uid: 1000, sudoUid: undefined };
    const mine = { uid: 1000, mode: 0o100644 };
    const folder = { path: '/repo', uid: 1000, mode: 0o40755 };
    expect(distrustReason({ file: mine, folders: [folder] }, user)).toBeUndefined();
    expect(distrustReason({ file: { uid: 1001, mode: 0o100644 }, folders: [folder] }, user)).toBe(
      'is owned by another user (uid 1001)',
    );
    expect(distrustReason({ file: { uid: 1000, mode: 0o100666 }, folders: [folder] }, user)).toContain(
      'can be changed by any user (mode 0666)',
    );
    expect(
      distrustReason({ file: mine, folders: [{ path: '/shared', uid: 0, mode: 0o40777 }] }, user),
    ).toContain('its folder /shared is writable by all and has no sticky bit (mode 0777)');
    // /tmp: sticky, so only the owner may replace the file, and ownership decides.
    expect(distrustReason({ file: mine, folders: [{ path: '/tmp', uid: 0, mode: 0o41777 }] }, user)).toBe(
      undefined,
    );
    expect(distrustReason({ link: { uid: 1001, mode: 0o120777 }, file: mine, folders: [folder] }, user)).toBe(
      'is a symbolic link owned by another user (uid 1001)',
    );
    // Group write is allowed, as git allows it (umask 002).
    expect(distrustReason({ file: { uid: 1000, mode: 0o100664 }, folders: [folder] }, user)).toBeUndefined();
    // root: root's own files, and under sudo the invoking user's; nobody else's.
    const root = { uid: 0, sudoUid: 1000 };
    expect(distrustReason({ file: { uid: 0, mode: 0o100644 }, folders: [folder] }, root)).toBeUndefined();
    expect(distrustReason({ file: mine, folders: [folder] }, root)).toBeUndefined();
    expect(distrustReason({ file: { uid: 1001, mode: 0o100644 }, folders: [folder] }, root)).toBeDefined();
    expect(distrustReason({ file: mine, folders: [folder] }, { uid: 0, sudoUid: undefined })).toBeDefined();
  });

  it.skipIf(!isRoot)(
    "another user's file is not used: a warning says why and how to trust it; ESIGN_PROJECT_FILE trusts it",
    async () => {
      const { nested, file } = repository({ profile: 'attacker', templates: { 'offer-letter': OTHER } });
      chownSync(file, NOBODY, NOBODY);
      const result = await status(nested);
      expect(result.code).toBe(0);
      expect(projectIn(result)).toBeNull();
      expect(JSON.parse(result.stdout).profile).toEqual({ value: 'default', source: 'default' });
      // A template name from it resolves to nothing: nothing is sent.
      const create = await runCli(
        ['envelope', 'create', '--template', 'offer-letter', '--name', 'Ada', '--email', 'ada@example.com'],
        { cwd: nested, env: { ESIGN_TOKEN: TOKEN, ESIGN_BASE_URL: server.baseUrl } },
      );
      expect(create.code).toBe(2);
      expect(server.requests).toHaveLength(0);
      expect(create.stderr).toContain(
        `warning: ${file} is not used: it is owned by another user (uid ${NOBODY}). esign uses a project file only when it is yours`,
      );
      expect(create.stderr).toContain(`If you trust it, name it: ESIGN_PROJECT_FILE=${file}`);
      // Named, it is used whoever owns it.
      const named = await status(nested, { ESIGN_PROJECT_FILE: file });
      expect(projectIn(named)).toBe(file);
      // Under sudo, the invoking user's file is the user's own (git's rule for root).
      const sudo = await status(nested, { SUDO_UID: String(NOBODY) });
      expect(projectIn(sudo)).toBe(file);
    },
  );

  it.skipIf(!isRoot)(
    'a file in a folder anyone can write (no sticky bit) is not used; with the sticky bit it is',
    async () => {
      const { root, nested, file } = repository({ templates: { nda: OFFER } });
      chmodSync(root, 0o777);
      expect(projectIn(await status(nested))).toBeNull();
      // Under --json a warning on success is held back (shown with --verbose); plain, it is shown.
      const open = await runCli(['status'], { cwd: nested, env: { ESIGN_TOKEN: TOKEN } });
      expect(open.stderr).toContain(
        `warning: ${file} is not used: it can be replaced by any user: its folder ${root} is writable by all and has no sticky bit (mode 0777).`,
      );
      chmodSync(root, 0o1777);
      expect(projectIn(await status(nested))).toBe(file);
      // Another user's file in a sticky folder, /tmp's case, is still not used.
      chownSync(file, NOBODY, NOBODY);
      expect(projectIn(await status(nested))).toBeNull();
      chmodSync(root, 0o700);
    },
  );

  it.skipIf(!isRoot)(
    "the spawned binary in a /tmp-like folder ignores another user's .esign.json",
    async () => {
      const shared = mkdtempSync(join(tmpdir(), 'esign-shared-'));
      chmodSync(shared, 0o1777);
      const mine = join(shared, 'me');
      mkdirSync(mine);
      const planted = join(shared, '.esign.json');
      writeFileSync(planted, JSON.stringify({ templates: { 'offer-letter': OTHER } }));
      chownSync(planted, NOBODY, NOBODY);
      const env = { ESIGN_CONFIG_DIR: freshConfigDir() };
      const listed = await runBin(['templates', '--json'], { cwd: mine, env });
      expect(listed.code).toBe(0);
      expect(JSON.parse(listed.stdout)).toEqual({
        project_file: null,
        profile: 'default',
        templates: {},
        entries: [], // issue 22: each template with its fields
      });
      const told = await runBin(['templates'], { cwd: mine, env });
      expect(told.stderr).toContain(`warning: ${planted} is not used: it is owned by another user`);
    },
  );
});

describe('ESIGN_PROJECT_FILE', () => {
  it('names the project file (relative to the current folder); one that does not exist is exit 2', async () => {
    const { root, nested } = repository({ templates: { nda: OFFER } });
    const other = join(root, 'other.json');
    writeFileSync(other, JSON.stringify({ templates: { elsewhere: OTHER } }));
    const named = await runCli(['templates', '--json'], {
      cwd: nested,
      env: { ESIGN_PROJECT_FILE: '../../other.json' },
    });
    expect(named.code).toBe(0);
    expect(JSON.parse(named.stdout)).toMatchObject({ project_file: other, templates: { elsewhere: OTHER } });
    const missing = await runCli(['templates'], { cwd: nested, env: { ESIGN_PROJECT_FILE: 'nope.json' } });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain(
      `error: ESIGN_PROJECT_FILE names ${join(nested, 'nope.json')}, which does not exist.`,
    );
  });
});

describe('what stands at .esign.json', () => {
  it('a dangling or looping symbolic link is an error naming it, never a reason to use the parent file', async () => {
    const { root, nested } = repository({ templates: { nda: OFFER } });
    const link = join(root, 'services', '.esign.json');
    symlinkSync(join(root, 'missing.json'), link);
    const dangling = await runCli(['templates'], { cwd: nested });
    expect(dangling.code).toBe(2);
    expect(dangling.stdout).toBe('');
    expect(dangling.stderr).toContain(
      `error: The project file ${link} is a symbolic link to ${join(root, 'missing.json')}, which does not exist.`,
    );
    const loop = join(root, 'services', 'hiring', '.esign.json');
    symlinkSync(loop, loop);
    const looping = await runCli(['status'], { cwd: nested, env: { ESIGN_TOKEN: TOKEN } });
    expect(looping.code).toBe(2);
    expect(looping.stderr).toContain(`error: The project file ${loop} is a symbolic link that loops.`);
  });

  it('a deeply nested file is a clear error with its place, not a crash', async () => {
    const { nested, file } = repository(`{"defaults": ${'['.repeat(100_000)}${']'.repeat(100_000)}}`);
    const result = await runCli(['templates'], { cwd: nested });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(
      `error: ${file}:1:45: the project file nests objects or arrays more than 32 levels deep; it is not a project file.`,
    );
    expect(result.stderr).not.toContain('internal');
  });

  it("text from the file is escaped in messages: keys and names can't drive the terminal", async () => {
    const { nested } = repository('{"\\u001b]0;owned\\u0007": 1, "templates": {"\\u001b[2Jx": "bad"}}');
    const result = await runCli(['templates'], { cwd: nested });
    expect(result.code).toBe(2);
    expect(result.stderr).not.toContain('\u001b');
    expect(result.stderr).toContain("unknown key '\\x1b]0;owned\\x07'");
    expect(result.stderr).toContain(
      "'templates.\\x1b[2Jx' is not a template name: it has '\\x1b' at character 1",
    );
  });
});

describe('problems in the project file', () => {
  it('a bad template id is a warning for login, config list and logout; an error where names are used', async () => {
    const { nested, file } = repository(
      '{\n  "profile": "team",\n  "templates": {"offer-letter": "01JD7X4ZQ8"}\n}\n',
    );
    const configDir = freshConfigDir();
    const login = await runCli(['login', '--with-token'], { cwd: nested, configDir, stdin: TOKEN });
    expect(login.code).toBe(0);
    expect(login.stderr).toContain(
      `warning: ${file}:3:17: 'templates.offer-letter' must be a template id (a ULID: 26 characters like ${OFFER}).`,
    );
    expect(JSON.parse(readFileSync(join(configDir, 'config.json'), 'utf8')).profiles.team.token).toBe(TOKEN);
    const list = await runCli(['config', 'list'], { cwd: nested, configDir });
    expect(list.code).toBe(0);
    expect(list.stdout).toContain('profile=team\n');
    expect(list.stderr).toContain('warning:');
    const logout = await runCli(['logout'], { cwd: nested, configDir });
    expect(logout.code).toBe(0);
    expect(logout.stderr).toContain("Removed the token of profile 'team'");
    // status shows the file's names, so it reports the file as broken, as the commands that use them do.
    expect((await runCli(['status'], { cwd: nested, configDir })).code).toBe(2);
    const create = await runCli(
      ['envelope', 'create', '--template', OFFER, '--name', 'Ada', '--email', 'ada@example.com', '--dry-run'],
      { cwd: nested, configDir },
    );
    expect(create.code).toBe(2);
    expect(create.stderr).toContain(`error: ${file}:3:17: 'templates.offer-letter' must be a template id`);
  });

  it('a file whose profile cannot be told still stops login when nothing else names the profile', async () => {
    const { nested } = repository('{"profile": "bad name", "templates": {}}');
    const configDir = freshConfigDir();
    const guess = await runCli(['login', '--with-token'], { cwd: nested, configDir, stdin: TOKEN });
    expect(guess.code).toBe(2);
    expect(guess.stderr).toContain("'profile' is not a valid profile name");
    const named = await runCli(['login', '--with-token', '--profile', 'ci'], {
      cwd: nested,
      configDir,
      stdin: TOKEN,
    });
    expect(named.code).toBe(0);
    expect(named.stderr).toContain('warning:');
  });

  it('an invalid template name says the rule it breaks; problems come in file order', async () => {
    const { nested, file } = repository(
      `{\n  "zzz": 1,\n  "templates": {\n    "a b": "${OFFER}",\n    "-x": "${OFFER}",\n    "${OFFER}": "${OFFER}",\n    "ok": "nope"\n  }\n}\n`,
    );
    const result = await runCli(['templates', '--json'], { cwd: nested });
    expect(result.code).toBe(2);
    const error = JSON.parse(result.stderr).error;
    expect([error.message, ...error.details]).toEqual([
      `${file}:2:3: unknown key 'zzz'. Known keys here: profile, templates, profiles, defaults, $schema.`,
      `${file}:4:5: 'templates.a b' is not a template name: it has ' ' at character 2; a template name is letters, digits and . _ -, starts with a letter or a digit, and has at most 64 characters.`,
      `${file}:5:5: 'templates.-x' is not a template name: it starts with '-'; a template name is letters, digits and . _ -, starts with a letter or a digit, and has at most 64 characters.`,
      `${file}:6:5: 'templates.${OFFER}' is not a template name: it looks like a template id (a ULID), and a name must not, so that an id is never taken for a name.`,
      `${file}:7:5: 'templates.ok' must be a template id (a ULID: 26 characters like ${OFFER}).`,
    ]);
  });

  it('a template named __proto__ is told as a bad name, not dropped without a word', async () => {
    const { nested, file } = repository(`{"templates": {"__proto__": "${OFFER}", "ok": "${OFFER}"}}`);
    const result = await runCli(['templates'], { cwd: nested });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(
      `error: ${file}:1:16: 'templates.__proto__' is not a template name: it starts with '_';`,
    );
  });
});
