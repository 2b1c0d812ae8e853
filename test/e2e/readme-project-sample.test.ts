// The guides' sample .esign.json and sample workflow, together (issue 21): a CI job that gives
// a production base URL and no profile must send the top-level (production) ids, never the ids of
// the profile the file names for developers (the sandbox's). Both are read from the guides
// themselves (docs/project-file.md and docs/github-actions.md, where they moved from the README),
// so a change to either sample is tested as it is printed.
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ok, useScriptedServer } from '../helpers/scripted-server.js';
import { freshConfigDir, runBin } from '../helpers/spawn.js';

const PROJECT_GUIDE = readFileSync(resolve(import.meta.dirname, '../../docs/project-file.md'), 'utf8');
const ACTIONS_GUIDE = readFileSync(resolve(import.meta.dirname, '../../docs/github-actions.md'), 'utf8');
const TOKEN = 'tok_live_readme_2c4e6a8b0d1f3a5c';

/** The first ```json block after the project file guide's heading. */
function sampleProjectFile(): {
  profile: string;
  templates: Record<string, string>;
  profiles: Record<string, { templates: Record<string, string> }>;
} {
  const at = PROJECT_GUIDE.indexOf('# The project file (.esign.json)');
  if (at < 0) throw new Error('docs/project-file.md has no heading for the project file');
  const section = PROJECT_GUIDE.slice(at);
  const block = /```json\n([\s\S]*?)```/.exec(section)?.[1];
  if (!block) throw new Error('docs/project-file.md has no sample .esign.json');
  return JSON.parse(block);
}

/** The base URL the composite action's sample workflow gives the later esign steps, in `ESIGN_BASE_URL:`. */
function workflowBaseUrl(): string {
  const at = ACTIONS_GUIDE.indexOf('## The composite action');
  if (at < 0) throw new Error('docs/github-actions.md has no section for the composite action');
  const workflow = ACTIONS_GUIDE.slice(at);
  const url = /ESIGN_BASE_URL: (\S+)/.exec(workflow)?.[1];
  if (!url) throw new Error('the sample workflow of docs/github-actions.md sets no ESIGN_BASE_URL');
  return url;
}

const server = useScriptedServer();

describe("the guides' sample .esign.json under their sample workflow", () => {
  const sample = sampleProjectFile();
  const repo = mkdtempSync(join(tmpdir(), 'esign-readme-'));
  mkdirSync(join(repo, 'hiring'));
  writeFileSync(join(repo, '.esign.json'), JSON.stringify(sample));
  const create = [
    'envelope',
    'create',
    '--template',
    'offer-letter',
    '--name',
    'Ada',
    '--email',
    'ada@example.com',
    '-q',
  ];

  it('the samples say what the test relies on: a developer profile whose ids differ from the top level', () => {
    expect(workflowBaseUrl()).toMatch(/^https:\/\/esign\.example\.com\//);
    expect(sample.profiles[sample.profile]?.templates['offer-letter']).toBeDefined();
    expect(sample.profiles[sample.profile]?.templates['offer-letter']).not.toBe(
      sample.templates['offer-letter'],
    );
  });

  it('ESIGN_TOKEN and ESIGN_BASE_URL, no profile: the top-level id is sent, and a note says why', async () => {
    server.script(ok());
    // The scripted server stands in for the workflow's production URL (only loopback is reachable here).
    const result = await runBin(create, {
      cwd: join(repo, 'hiring'),
      env: { ESIGN_TOKEN: TOKEN, ESIGN_BASE_URL: server.baseUrl, ESIGN_CONFIG_DIR: freshConfigDir() },
    });
    expect(result.code).toBe(0);
    expect(JSON.parse(server.requests[0]?.body ?? '{}').template_id).toBe(sample.templates['offer-letter']);
    expect(result.stderr).toContain(
      `note: the project file's profile '${sample.profile}' is not used: ESIGN_BASE_URL gives the base URL, so the profile is 'default'`,
    );
  });

  it("the composite action's way (--base-url), with a developer's sandbox profile stored: still the top-level id", async () => {
    const configDir = freshConfigDir();
    mkdirSync(configDir, { recursive: true });
    writeFileSync(
      join(configDir, 'config.json'),
      JSON.stringify({ profiles: { [sample.profile]: { base_url: 'http://127.0.0.1:9/api/v1' } } }),
      { mode: 0o600 },
    );
    server.script(ok());
    const result = await runBin([...create, '--base-url', server.baseUrl], {
      cwd: join(repo, 'hiring'),
      env: { ESIGN_TOKEN: TOKEN, ESIGN_CONFIG_DIR: configDir },
    });
    expect(result.code).toBe(0);
    expect(JSON.parse(server.requests[0]?.body ?? '{}').template_id).toBe(sample.templates['offer-letter']);
    // Named, the profile's own names are used: a choice the user made.
    server.script(ok());
    const named = await runBin([...create, '--base-url', server.baseUrl, '--profile', sample.profile], {
      cwd: join(repo, 'hiring'),
      env: { ESIGN_TOKEN: TOKEN, ESIGN_CONFIG_DIR: configDir },
    });
    expect(named.code).toBe(0);
    expect(JSON.parse(server.requests[1]?.body ?? '{}').template_id).toBe(
      sample.profiles[sample.profile]?.templates['offer-letter'],
    );
  });
});
