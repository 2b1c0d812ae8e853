// A token that is protocol text, under the v1 SDK client, through the built binary. The redaction
// of `esign mcp`'s stdout masks values, never the protocol's own text: ESIGN_TOKEN=structuredContent
// (a key of every tool result) leaves every message whole. And a value too short to be a token
// (ESIGN_TOKEN=text, 4 characters, a word of every message) is refused where tokens are resolved,
// for every command alike: the server answers as always, and a call that needs the token says why
// there is none; `status`, `envelope create`, a token command's output and `login` say the same.
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { RunningSandbox } from '../../src/sandbox/server.js';
import { CREATE_ARGS } from '../helpers/create-command.js';
import { serveUnder } from '../helpers/mcp-clients.js';
import { errorOf, textOf } from '../helpers/mcp-results.js';
import { freshConfigDir, runBin } from '../helpers/spawn.js';
import { ACME_OFFER, startQuietSandbox } from '../sandbox/helpers.js';

let sandbox: RunningSandbox;
beforeAll(async () => {
  sandbox = await startQuietSandbox();
});
afterAll(() => sandbox?.close());

/** A create the server sends without asking (--confirm never): it needs the token. */
const CREATE = { template: ACME_OFFER, signatory: { name: 'Ada Lovelace', email: 'ada@example.com' } };
const SHORT =
  'ESIGN_TOKEN is 4 characters long: too short to be a token (one has at least 16); it was not used.';

it('ESIGN_TOKEN=structuredContent: every message stays whole; the token is masked in values only', async () => {
  const served = await serveUnder('v1', {
    args: ['--confirm', 'never'],
    env: { ESIGN_BASE_URL: sandbox.baseUrl, ESIGN_TOKEN: 'structuredContent' },
  });
  try {
    const tools = await served.listTools();
    expect(tools.map((tool) => tool.name)).toContain('get_status');
    const status = await served.call('get_status');
    expect(status.isError).toBeFalsy();
    expect(status.structuredContent).toMatchObject({
      token: { value: '****tent', source: 'env ESIGN_TOKEN' },
      base_url: { value: sandbox.baseUrl },
    });
    // The sandbox does not know it: a 401, as a tool error, read whole.
    const created = errorOf(await served.call('create_envelope', CREATE));
    expect(created).toMatchObject({ code: 'unauthenticated', status: 401 });
  } finally {
    await served.close();
  }
});

it('ESIGN_TOKEN=text: the protocol is untouched (nothing is [redacted]); a call that needs the token says it is too short', async () => {
  const served = await serveUnder('v1', {
    args: ['--confirm', 'never'],
    env: { ESIGN_BASE_URL: sandbox.baseUrl, ESIGN_TOKEN: 'text' },
  });
  try {
    const status = await served.call('get_status');
    expect(status.isError).toBeFalsy();
    expect(status.structuredContent).toMatchObject({ token: { value: null, source: 'env ESIGN_TOKEN' } });
    const before = sandbox.requests().length;
    const created = await served.call('create_envelope', CREATE);
    expect(errorOf(created)).toMatchObject({ code: 'unauthenticated', message: SHORT });
    expect(textOf(created)).not.toContain('[redacted]');
    expect(sandbox.requests().length).toBe(before);
    const checked = await served.call('validate_envelope', CREATE);
    expect(checked.isError).toBeFalsy();
    expect(textOf(checked)).not.toContain('[redacted]');
  } finally {
    await served.close();
  }
});

it('every command agrees: status warns and exits 3, a create exits 3 and sends nothing, login refuses to store it', async () => {
  const env = { ESIGN_CONFIG_DIR: freshConfigDir(), ESIGN_BASE_URL: sandbox.baseUrl, ESIGN_TOKEN: 'text' };
  const status = await runBin(['status'], { env });
  expect(status.code).toBe(3);
  expect(status.stderr).toContain(`warning: ${SHORT}`);
  const before = sandbox.requests().length;
  const create = await runBin([...CREATE_ARGS, '--json'], { env });
  expect(create.code).toBe(3);
  expect(JSON.parse(create.stderr).error).toMatchObject({ code: 'unauthenticated', message: SHORT });
  expect(sandbox.requests().length).toBe(before);
  const fromCommand = await runBin(CREATE_ARGS, {
    env: { ...env, ESIGN_TOKEN: undefined, ESIGN_TOKEN_COMMAND: 'echo tok_123' },
  });
  expect(fromCommand.code).toBe(3);
  expect(fromCommand.stderr).toContain(
    'printed something that is not a token: its first line is 7 characters long: too short to be a token (one has at least 16).',
  );
  expect(sandbox.requests().length).toBe(before);
  const login = await runBin(['login', '--with-token'], {
    env: { ESIGN_CONFIG_DIR: env.ESIGN_CONFIG_DIR },
    stdin: 'tok_123\n',
  });
  expect(login.code).toBe(2);
  expect(login.stderr).toContain(
    'The token is 7 characters long: too short to be a token (one has at least 16); nothing was stored.',
  );
});
