#!/usr/bin/env bash
# Opens a pull request that adds (or replaces) files in another repository: the release workflow's
# way into a Homebrew tap, a scoop bucket and microsoft/winget-pkgs (.github/workflows/release.yml).
# It clones only the folders it writes, commits the files on a branch of their own, pushes it (to
# the repository itself, or with --fork to the token owner's fork, made when missing and brought up
# to date first), and opens the pull request; run again for the same branch, it updates the branch
# and leaves the open pull request as it is. A file that is already there as given opens nothing.
#
#   scripts/open-pull-request.sh [--fork] REPO BRANCH TITLE BODY SOURCE=DEST...
# Needs gh and git, and GH_TOKEN: a token that may push to REPO (or, with --fork, fork it and push
# to the fork) and open pull requests on it.
set -euo pipefail
fork=false
if [ "${1:-}" = --fork ]; then fork=true; shift; fi
[ $# -ge 5 ] || { echo "usage: $0 [--fork] REPO BRANCH TITLE BODY SOURCE=DEST..." >&2; exit 2; }
repo=$1 branch=$2 title=$3 body=$4
shift 4
[ -n "${GH_TOKEN:-}" ] || { echo "open-pull-request: GH_TOKEN is empty: no token to reach $repo" >&2; exit 1; }

pairs=()
dests=()
for pair in "$@"; do
  source=${pair%%=*} dest=${pair#*=}
  [ -f "$source" ] || { echo "open-pull-request: $source is not a file" >&2; exit 1; }
  pairs+=("$(realpath "$source")=$dest")
  dests+=("$dest")
done

gh auth setup-git
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
push_repo=$repo head=$branch
if $fork; then
  login=$(gh api user --jq .login)
  push_repo="$login/${repo#*/}"
  gh repo view "$push_repo" >/dev/null 2>&1 || gh repo fork "$repo" --clone=false
  gh repo sync "$push_repo" --source "$repo"
  head="$login:$branch"
fi
git clone --quiet --depth 1 --filter=blob:none --no-checkout "https://github.com/$push_repo.git" "$work/repo"
cd "$work/repo"
git sparse-checkout set --no-cone "${dests[@]}"
git checkout --quiet
git switch --quiet -c "$branch"
for pair in "${pairs[@]}"; do
  source=${pair%%=*} dest=${pair#*=}
  mkdir -p "$(dirname "$dest")"
  cp "$source" "$dest"
  git add --sparse "$dest"
done
if git diff --cached --quiet; then
  echo "$repo already holds these files as given: no pull request"
  exit 0
fi
git -c user.name='github-actions[bot]' -c user.email='41898282+github-actions[bot]@users.noreply.github.com' \
  commit --quiet -m "$title"
git push --quiet --force origin "$branch"
open=$(gh pr list --repo "$repo" --head "$branch" --state open --json url --jq '.[0].url // empty')
if [ -n "$open" ]; then
  echo "updated the pull request $open"
else
  gh pr create --repo "$repo" --head "$head" --title "$title" --body "$body"
fi
