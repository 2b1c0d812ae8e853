#!/usr/bin/env bash
# The whole flow of an installed esign, as a person meets it, in a clean environment: --version,
# --help, its own sandbox, the login prompt refused without a terminal, login --with-token, a
# create, a batch of three, completion, `esign mcp` (tools/list), and `man esign` where the install
# holds man pages. Used for the executable installed by install.sh with no node on PATH
# (scripts/check-binary.sh) and for the npm tarball installed into an empty prefix
# (scripts/check-package.sh): one list of what "it works" means, for both.
#
#   scripts/exercise-esign.sh WORK PATH [MANPATH]
# WORK: an empty folder for HOME and the files of the run; PATH: the only PATH esign gets (the
# folder holding esign first); MANPATH: where its man pages must be (given only for an install that
# has them: then `man esign` must show a page). Node, which runs
# this script's own JSON reading, need not be on that PATH. Exits 1 naming the step that failed.
set -euo pipefail
work=$1 run_path=$2 man_path=${3:-}
version=$(node -p 'require("./package.json").version')
fail() { echo "exercise-esign: $*" >&2; exit 1; }
mkdir -p "$work/home"
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
}
trap cleanup EXIT
clean() { env -i HOME="$work/home" PATH="$run_path" "$@"; }

[ "$(clean esign --version)" = "$version" ] || fail "esign --version is not $version"
# Into a file, not a pipe to `grep -q`: grep may close the pipe before esign has written all, and a
# closed pipe is exit 9 (the contract), which pipefail would take for this check failing.
clean esign --help >"$work/help.txt" || fail "esign --help failed"
grep -q 'envelope' "$work/help.txt" || fail "esign --help does not list envelope"
# `exec`: the background job is esign itself (not a subshell around it), so that cleanup's kill
# reaches it and no sandbox outlives the check.
(exec env -i HOME="$work/home" PATH="$run_path" esign sandbox --port 0 --json) \
  >"$work/sandbox.json" 2>"$work/sandbox.err" &
pids+=("$!")
for _ in $(seq 100); do [ -s "$work/sandbox.json" ] && break; sleep 0.1; done
[ -s "$work/sandbox.json" ] || fail "esign sandbox printed nothing: $(cat "$work/sandbox.err")"
read -r base_url token template < <(node -e '
  const info = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8").split("\n")[0]);
  const org = info.organisations[0];
  console.log(info.base_url, org.token, org.templates.find((t) => t.merge_tags.length === 0)?.id ?? org.templates[0].id);' "$work/sandbox.json")
# The login prompt needs a terminal: without one it is exit 2, naming --with-token.
status=0
clean esign login --base-url "$base_url" </dev/null 2>"$work/login-prompt.err" || status=$?
[ "$status" = 2 ] || fail "esign login with no terminal exited $status, not 2"
grep -q -- '--with-token' "$work/login-prompt.err" || fail "esign login with no terminal does not name --with-token"
printf "%s\n" "$token" | clean esign login --with-token --base-url "$base_url" 2>"$work/login.err"
[ -f "$work/home/.config/esign/config.json" ] || fail "login did not write ~/.config/esign/config.json"
set_fields=$(node -e '
  const info = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8").split("\n")[0]);
  const t = info.organisations[0].templates.find((t) => t.id === process.argv[2]);
  console.log(t.merge_tags.map((tag) => `--set ${tag}=CI`).join(" "));' "$work/sandbox.json" "$template")
# shellcheck disable=SC2086 # one --set key=value per merge tag, none with spaces
clean esign envelope create --template "$template" $set_fields --name "CI Check" --email ci@example.com --json >"$work/create.json"
grep -q '"signing_url"' "$work/create.json" || fail "envelope create printed no signing_url"
printf 'signatory_name,signatory_email\nAda,ada@example.com\nGrace,grace@example.com\nKatherine,kat@example.com\n' >"$work/people.csv"
# shellcheck disable=SC2086
clean esign envelope batch "$work/people.csv" --template "$template" $set_fields --output "$work/results.jsonl" 2>"$work/batch.err" ||
  fail "the batch failed: $(cat "$work/batch.err")"
[ "$(grep -c '"ok":true' "$work/results.jsonl")" = 3 ] || fail "the batch did not create 3 envelopes: $(cat "$work/batch.err")"
clean esign completion bash >"$work/completion.bash"
grep -q 'esign __complete' "$work/completion.bash" || fail "the bash completion does not call esign"
if grep -qw node "$work/completion.bash"; then fail "the bash completion calls node"; fi
clean esign __complete -- envelope c >"$work/complete.txt" || fail "esign __complete failed"
grep -q '^create' "$work/complete.txt" || fail "esign __complete does not offer create"
printf '%s\n' \
  '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"ci","version":"1"}}}' \
  '{"jsonrpc":"2.0","method":"notifications/initialized"}' \
  '{"jsonrpc":"2.0","id":2,"method":"tools/list"}' |
  clean esign mcp >"$work/mcp.out" 2>"$work/mcp.err" || fail "esign mcp failed: $(cat "$work/mcp.err")"
grep -q '"create_envelope"' "$work/mcp.out" || fail "esign mcp listed no create_envelope: $(cat "$work/mcp.out" "$work/mcp.err")"
# esign mcp install: the entry it writes (the executable itself, or node and this install's bin/esign.js)
# is started and checked before it is written.
clean esign mcp install cursor >"$work/mcp-install.out" 2>"$work/mcp-install.err" ||
  fail "esign mcp install failed: $(cat "$work/mcp-install.err")"
grep -q 'Checked: it starts and answers as an MCP server' "$work/mcp-install.err" ||
  fail "esign mcp install did not check the entry: $(cat "$work/mcp-install.err")"
done_list="--version, --help, sandbox, login prompt refused without a terminal, login, create, batch of 3, completion, mcp, mcp install"
if [ -n "$man_path" ]; then
  command -v man >/dev/null || fail "man is not installed, and this install has man pages to check (apt-get install man-db)"
  MANPATH="$man_path" man -w esign >/dev/null 2>&1 || fail "man esign finds no page in $man_path"
  MANPATH="$man_path" MANPAGER=cat man esign >"$work/man.txt" 2>/dev/null || fail "man esign failed"
  grep -q 'esign' "$work/man.txt" || fail "man esign shows no esign page"
  done_list="$done_list, man esign"
fi
echo "installed esign $version ran: $done_list"
