// npm run demo: the whole flow on one machine, with no account. Starts `esign sandbox`, logs in with
// its token into a throwaway config folder, creates a real envelope and prints its signing URL.
// On a terminal the sandbox keeps running so the URL can be opened; Ctrl-C stops it.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';

const BIN = new URL('../bin/esign.js', import.meta.url).pathname;
const configDir = mkdtempSync(join(tmpdir(), 'esign-demo-'));
const esign = (args, input) => {
  console.log(`$ esign ${args.map((a) => (/[\s"]/.test(a) ? `'${a}'` : a)).join(' ')}`);
  const result = spawnSync(process.execPath, [BIN, ...args], {
    env: { ...process.env, ESIGN_CONFIG_DIR: configDir },
    input,
    stdio: [input === undefined ? 'inherit' : 'pipe', 'pipe', 'inherit'],
    encoding: 'utf8',
  });
  process.stdout.write(result.stdout);
  if (result.status !== 0) throw new Error(`esign ${args[0]} exited ${result.status}`);
  return result.stdout;
};

const sandbox = spawn(process.execPath, [BIN, 'sandbox', '--port', '0', '--json'], {
  stdio: ['ignore', 'pipe', 'ignore'],
});
const cleanup = () => {
  sandbox.kill('SIGTERM');
  rmSync(configDir, { recursive: true, force: true });
};
try {
  const info = JSON.parse(
    await new Promise((resolve, reject) => {
      createInterface({ input: sandbox.stdout }).once('line', resolve);
      sandbox.once('exit', (code) => reject(new Error(`esign sandbox exited ${code}`)));
    }),
  );
  const organisation = info.organisations[0];
  const template = organisation.templates[0];
  console.log(`Sandbox API at ${info.base_url} (organisation "${organisation.name}")\n`);
  esign(['login', '--with-token', '--base-url', info.base_url], `${organisation.token}\n`);
  const sets = template.merge_tags.flatMap((tag) => [
    '--set',
    `${tag}=${tag === 'start_date' ? '2026-12-01' : `Demo ${tag}`}`,
  ]);
  const create = [
    'envelope',
    'create',
    '--template',
    template.id,
    ...sets,
    '--name',
    'Ada Lovelace',
    '--email',
    'ada@example.com',
  ];
  esign(create);
  const url = esign([...create, '-q']).trim();
  const page = await fetch(url);
  console.log(
    `\nSigning URL: ${url}  (GET ${page.status}, ${(await page.text()).includes('Ada Lovelace') ? 'shows the signer' : 'unexpected page'})`,
  );
  console.log(
    '\nTo type `esign` yourself from this checkout: `npx esign …`, or put it on your PATH with `npm install -g .`.',
  );
  if (process.stdout.isTTY && process.stdin.isTTY) {
    console.log('The sandbox keeps running so you can open the URL in a browser. Press Ctrl-C to stop it.');
    await new Promise((resolve) => process.once('SIGINT', resolve));
  }
} finally {
  cleanup();
}
