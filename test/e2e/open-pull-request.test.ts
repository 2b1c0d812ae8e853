// scripts/open-pull-request.sh, which the release workflow runs to put esign.rb in the Homebrew tap,
// esign.json in the scoop bucket and the winget manifests in microsoft/winget-pkgs. Here GitHub is
// a bare repository on disk (git's url.<base>.insteadOf sends https://github.com/ there) and `gh` a
// stand-in that records what it was asked: the branch holds exactly the files, the pull request is
// opened once, and a file already there as given opens none.
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '../..');
const SCRIPT = join(root, 'scripts', 'open-pull-request.sh');

function world() {
  const dir = mkdtempSync(join(tmpdir(), 'esign-open-pr-'));
  const git = (cwd: string, ...args: string[]) => execFileSync('git', args, { cwd, encoding: 'utf8' });
  // "GitHub": acme/homebrew-tap, with one formula already there.
  const remote = join(dir, 'github', 'acme', 'homebrew-tap.git');
  mkdirSync(remote, { recursive: true });
  git(remote, 'init', '--quiet', '--bare', '--initial-branch=main');
  const seed = join(dir, 'seed');
  git(dir, 'clone', '--quiet', remote, seed);
  mkdirSync(join(seed, 'Formula'));
  writeFileSync(join(seed, 'Formula', 'other.rb'), 'class Other < Formula\nend\n');
  writeFileSync(join(seed, 'README.md'), 'a tap\n');
  git(seed, 'add', '.');
  git(seed, '-c', 'user.name=t', '-c', 'user.email=t@example.com', 'commit', '--quiet', '-m', 'seed');
  git(seed, 'push', '--quiet', 'origin', 'main');
  const gitconfig = join(dir, 'gitconfig');
  writeFileSync(
    gitconfig,
    `[url "file://${join(dir, 'github')}/"]\n\tinsteadOf = https://github.com/\n[protocol "file"]\n\tallow = always\n[uploadpack]\n\tallowFilter = true\n`,
  );
  // The stand-in gh: records each call; `pr list` answers what the file `open-pr` holds.
  const bin = join(dir, 'bin');
  mkdirSync(bin);
  const log = join(dir, 'gh.log');
  writeFileSync(
    join(bin, 'gh'),
    `#!/bin/sh\nprintf '%s\\n' "$*" >>'${log}'\ncase "$1 $2" in\n  "pr list") cat '${join(dir, 'open-pr')}' 2>/dev/null ;;\n  "pr create") echo https://github.com/acme/homebrew-tap/pull/1 >'${join(dir, 'open-pr')}' ;;\nesac\nexit 0\n`,
  );
  chmodSync(join(bin, 'gh'), 0o755);
  const formula = join(dir, 'esign.rb');
  writeFileSync(formula, 'class Esign < Formula\nend\n');
  const run = (...args: string[]) =>
    spawnSync('bash', [SCRIPT, ...args], {
      encoding: 'utf8',
      env: {
        PATH: `${bin}:${process.env.PATH}`,
        HOME: dir,
        GIT_CONFIG_GLOBAL: gitconfig,
        GIT_CONFIG_NOSYSTEM: '1',
        GH_TOKEN: 'stand-in',
      },
    });
  const calls = () => readFileSync(log, 'utf8').trim().split('\n');
  const show = (ref: string, path: string) => git(remote, 'show', `${ref}:${path}`);
  return { dir, run, calls, show, formula, git, remote };
}

describe('scripts/open-pull-request.sh', () => {
  it('pushes a branch with the file and opens one pull request; run again, it opens none', () => {
    const { run, calls, show, formula, git, remote } = world();
    const args = [
      'acme/homebrew-tap',
      'esign-1.2.3',
      'esign 1.2.3',
      'the body',
      `${formula}=Formula/esign.rb`,
    ];
    const first = run(...args);
    expect(first.stderr).toBe('');
    expect(first.status).toBe(0);
    expect(show('esign-1.2.3', 'Formula/esign.rb')).toBe('class Esign < Formula\nend\n');
    // Only the one file changed on the branch: the tap's other files are as they were.
    expect(git(remote, 'diff', '--name-only', 'main', 'esign-1.2.3').trim()).toBe('Formula/esign.rb');
    expect(show('esign-1.2.3', 'Formula/other.rb')).toContain('class Other');
    expect(calls()).toContain(
      'pr create --repo acme/homebrew-tap --head esign-1.2.3 --title esign 1.2.3 --body the body',
    );

    writeFileSync(formula, 'class Esign < Formula\n  # changed\nend\n');
    const again = run(...args);
    expect(again.status).toBe(0);
    expect(again.stdout).toContain('updated the pull request https://github.com/acme/homebrew-tap/pull/1');
    expect(show('esign-1.2.3', 'Formula/esign.rb')).toContain('# changed');
    expect(calls().filter((call) => call.startsWith('pr create'))).toHaveLength(1);
  });

  it('opens nothing when the repository already holds the file as given', () => {
    const { run, calls, dir } = world();
    const same = join(dir, 'other.rb');
    writeFileSync(same, 'class Other < Formula\nend\n');
    const result = run('acme/homebrew-tap', 'esign-1.2.3', 'esign 1.2.3', 'body', `${same}=Formula/other.rb`);
    expect(result.status).toBe(0);
    expect(result.stdout).toContain('already holds these files as given: no pull request');
    expect(calls().some((call) => call.startsWith('pr '))).toBe(false);
  });

  it('refuses to run without a token, naming the repository', () => {
    const { formula } = world();
    const result = spawnSync(
      'bash',
      [SCRIPT, 'acme/homebrew-tap', 'b', 't', 'body', `${formula}=Formula/esign.rb`],
      {
        encoding: 'utf8',
        env: { PATH: process.env.PATH, GH_TOKEN: '' },
      },
    );
    expect(result.status).toBe(1);
    expect(result.stderr).toContain('GH_TOKEN is empty: no token to reach acme/homebrew-tap');
  });
});
