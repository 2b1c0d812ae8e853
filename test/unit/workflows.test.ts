// scripts/check-workflows.mjs (part of `npm run check`): the workflows and action.yml as GitHub's own
// parser reads them, plus the pins and permissions this project requires. The real files pass; a
// copy with one typo or one lapse fails, naming the file, line and column.
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import YAML from 'yaml';

const root = resolve(import.meta.dirname, '../..');
const CHECK = join(root, 'scripts', 'check-workflows.mjs');
const folder = mkdtempSync(join(tmpdir(), 'esign-workflows-'));
const ci = readFileSync(join(root, '.github', 'workflows', 'ci.yml'), 'utf8');
const release = readFileSync(join(root, '.github', 'workflows', 'release.yml'), 'utf8');
const action = readFileSync(join(root, 'action.yml'), 'utf8');

function check(...files: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((done) =>
    execFile(process.execPath, [CHECK, ...files], { cwd: folder }, (error, stdout, stderr) =>
      done({ code: error ? Number(error.code) : 0, stdout, stderr }),
    ),
  );
}

/** A copy of `text` with `from` replaced by `to` (which must occur), written as `name`. */
function broken(name: string, text: string, from: string | RegExp, to: string): string {
  const changed = text.replace(from, to);
  expect(changed).not.toBe(text);
  writeFileSync(join(folder, name), changed);
  return name;
}

describe('scripts/check-workflows.mjs', () => {
  it('passes the workflows and action.yml of this checkout', async () => {
    const run = await check();
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('.github/workflows/ci.yml, .github/workflows/release.yml, action.yml');
  });

  it('accepts the permissions the attestation needs (attestations: write, id-token: write)', () => {
    expect(release).toMatch(/attestations: write\n/);
    expect(release).toMatch(/id-token: write\n/);
  });

  it('rejects a typo in a key, a permission or an expression, naming file, line and column', async () => {
    const files = [
      broken('key.yml', ci, 'runs-on: ubuntu-24.04\n    timeout-minutes: 90', 'runs_on: ubuntu-24.04'),
      broken('permission.yml', release, 'attestations: write', 'attestation: write'),
      // A GitHub expression, not a template literal: `$` and `{{` kept apart for the linter.
      broken('expression.yml', ci, `$${'{{'} matrix.os }}`, `$${'{{'} matrix.os }`),
      broken('needs.yml', ci, 'needs: pack', 'needs: packs'),
    ];
    const run = await check(...files);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/^key\.yml:\d+:\d+: Unexpected value 'runs_on'$/m);
    expect(run.stderr).toMatch(/^permission\.yml:\d+:\d+: Unexpected value 'attestation'$/m);
    expect(run.stderr).toMatch(/^expression\.yml:\d+:\d+: .*expression/m);
    expect(run.stderr).toMatch(/^needs\.yml:\d+:\d+: Job 'smoke' depends on unknown job 'packs'\.$/m);
  });

  it('rejects an action not pinned to a full commit SHA, or pinned without its tag', async () => {
    const files = [
      broken('tag.yml', ci, /@3d3c42e5aac5ba805825da76410c181273ba90b1 # v7\.0\.1/g, '@v7'),
      broken(
        'no-comment.yml',
        ci,
        '820762786026740c76f36085b0efc47a31fe5020 # v7.0.0',
        '820762786026740c76f36085b0efc47a31fe5020',
      ),
    ];
    const run = await check(...files);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/^tag\.yml:27:15: "actions\/checkout@v7" is not pinned to a full commit SHA/m);
    expect(run.stderr).toMatch(
      /^no-comment\.yml:\d+:\d+: "actions\/setup-node@8207.*" has no comment naming its tag/m,
    );
  });

  it('rejects permissions granted at the top level, and a job that does not name its own', async () => {
    const files = [
      broken('top.yml', ci, 'permissions: {}', 'permissions: write-all'),
      broken(
        'job.yml',
        ci,
        '    timeout-minutes: 90\n    permissions:\n      contents: read\n',
        '    timeout-minutes: 90\n',
      ),
    ];
    const run = await check(...files);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/^top\.yml:\d+:\d+: the workflow must grant no permission at its top level/m);
    expect(run.stderr).toMatch(/^job\.yml:\d+:\d+: job "linux" does not say which permissions it needs/m);
  });

  it('reads action.yml as an action: a wrong `runs.using` fails', async () => {
    writeFileSync(join(folder, 'action.yml'), action.replace('using: composite', 'using: compsite'));
    const run = await check('action.yml');
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/^action\.yml:\d+:\d+: Unexpected value 'compsite'$/m);
  });
});

describe('the release workflow publishes to the channels', () => {
  const jobs = (YAML.parse(release) as { jobs: Record<string, Job> }).jobs;
  type Job = {
    if?: string;
    needs?: string[];
    permissions?: Record<string, string>;
    steps: { run?: string; env?: Record<string, string> }[];
    env?: Record<string, string>;
  };
  const runOf = (job: Job) => job.steps.map((step) => step.run ?? '').join('\n');

  it('after the release is published from attested assets, each job turned off by its own variable', () => {
    const toggles = {
      homebrew: 'PUBLISH_HOMEBREW',
      scoop: 'PUBLISH_SCOOP',
      winget: 'PUBLISH_WINGET',
      'mcp-registry': 'PUBLISH_MCP_REGISTRY',
    };
    for (const [name, variable] of Object.entries(toggles)) {
      const job = jobs[name] as Job;
      expect(job.if, name).toBe(`vars.${variable} != 'false'`);
      // publish needs npm, which needs attest: the files are attested and the release is public.
      expect(job.needs, name).toContain('publish');
      expect(runOf(job), name).toContain('sha256sum -c SHA256SUMS');
    }
    expect(jobs.publish?.needs).toContain('npm');
    expect(jobs.npm?.needs).toContain('attest');
    expect(jobs['mcp-registry']?.needs).toContain('npm');
  });

  it('opens pull requests with a token of the other repository and no permission of this one', () => {
    for (const [name, secret] of [
      ['homebrew', 'HOMEBREW_TAP_TOKEN'],
      ['scoop', 'SCOOP_BUCKET_TOKEN'],
      ['winget', 'WINGET_TOKEN'],
    ] as const) {
      const job = jobs[name] as Job;
      expect(job.permissions, name).toEqual({ contents: 'read' });
      const step = job.steps.find((each) => each.run?.includes('scripts/open-pull-request.sh'));
      expect(step?.env?.GH_TOKEN, name).toBe(`\${{ secrets.${secret} }}`);
      expect(step?.run, name).toContain(`the secret ${secret} is not set`);
    }
    expect(runOf(jobs.winget as Job)).toContain('open-pull-request.sh --fork microsoft/winget-pkgs');
  });

  it('publishes to the MCP registry with OIDC and a pinned mcp-publisher checked before it runs', () => {
    const job = jobs['mcp-registry'] as Job;
    expect(job.permissions).toEqual({ contents: 'read', 'id-token': 'write' });
    expect(job.env?.MCP_PUBLISHER_VERSION).toMatch(/^v\d+\.\d+\.\d+$/);
    expect(job.env?.MCP_PUBLISHER_SHA256).toMatch(/^[0-9a-f]{64}$/);
    const run = runOf(job);
    expect(run.indexOf('sha256sum --check --strict')).toBeGreaterThan(-1);
    expect(run.indexOf('sha256sum --check --strict')).toBeLessThan(
      run.indexOf('tar -xzf mcp-publisher.tar.gz'),
    );
    expect(run).toContain('login github-oidc');
    expect(run).not.toMatch(/secrets\.|releases\/latest/);
  });
});
