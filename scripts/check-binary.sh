#!/usr/bin/env bash
# CI, the executable as a person without Node gets it: build the Linux x64 executable, check
# SHA256SUMS, serve release/ from 127.0.0.1, install with scripts/install.sh, and run the installed
# esign with no `node` on PATH (the whole flow against its own sandbox). Then a tampered archive,
# which must install nothing. Node runs only the build and the file server. CHECK_BINARY_REUSE=1
# skips the build and checks the executable already in release/.
set -euo pipefail
cd "$(dirname "$0")/.."
work=$(mktemp -d)
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  # Wait for them to end before their folder goes: a process still writing there races the rm.
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT
fail() { echo "check-binary: $*" >&2; exit 1; }

version=$(node -p 'require("./package.json").version')
target=$(node -p '`${process.platform}-${process.arch}`')
[ "$target" = linux-x64 ] || fail "this check runs on linux-x64 (here: $target)"

echo "== npm run build:binary -- --target linux-x64"
[ -n "${CHECK_BINARY_REUSE:-}" ] || npm run --silent build:binary -- --target linux-x64
(cd release && sha256sum -c SHA256SUMS)

# Serves a folder; sets $url once it listens.
serve() {
  rm -f "$work/url"
  node scripts/serve-folder.mjs "$1" >"$work/url" &
  pids+=("$!")
  for _ in $(seq 100); do [ -s "$work/url" ] && break; sleep 0.1; done
  url=$(head -n 1 "$work/url")
}

# A PATH with the tools the install script and this check use, and no node.
tools="$work/tools"
mkdir -p "$tools" "$work/home"
for tool in sh tar gzip curl sha256sum awk cut sed tail tr mktemp mkdir cp mv rm chmod uname cat sleep; do
  ln -s "$(command -v "$tool")" "$tools/$tool"
done
no_node() { env -i HOME="$work/home" PATH="$work/home/.local/bin:$tools" "$@"; }
if no_node sh -c 'command -v node' >/dev/null; then fail "node is still on the PATH"; fi

serve release
echo "== install.sh from $url"
# Plain http from 127.0.0.1, which install.sh allows only when asked (the https tests are in
# test/e2e/install-script.test.ts).
no_node ESIGN_DOWNLOAD_URL="$url" ESIGN_INSTALL_ALLOW_HTTP=1 sh scripts/install.sh
esign="$work/home/.local/bin/esign"
[ -x "$esign" ] || fail "nothing installed in ~/.local/bin"

echo "== the installed esign, no node on PATH"
[ "$(no_node esign --version)" = "$version" ] || fail "esign --version is not $version"
# Into a file, not a pipe to `grep -q`: grep may close the pipe before esign has written all, and a
# closed pipe is exit 9 (the contract), which pipefail would take for this check failing.
no_node esign --help >"$work/help.txt" || fail "esign --help failed"
grep -q 'envelope' "$work/help.txt" || fail "esign --help does not list envelope"
# `exec`: the background job is esign itself (not a subshell around it), so that cleanup's kill
# reaches it and no sandbox outlives the check.
(exec env -i HOME="$work/home" PATH="$work/home/.local/bin:$tools" esign sandbox --port 0 --json) \
  >"$work/sandbox.json" 2>"$work/sandbox.err" &
pids+=("$!")
for _ in $(seq 100); do [ -s "$work/sandbox.json" ] && break; sleep 0.1; done
read -r base_url token template < <(node -e '
  const info = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8").split("\n")[0]);
  const org = info.organisations[0];
  console.log(info.base_url, org.token, org.templates.find((t) => t.merge_tags.length === 0)?.id ?? org.templates[0].id);' "$work/sandbox.json")
printf '%s\n' "$token" | no_node esign login --with-token --base-url "$base_url"
[ -f "$work/home/.config/esign/config.json" ] || fail "login did not write ~/.config/esign/config.json (the npm install's folder)"
set_fields=$(node -e '
  const info = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8").split("\n")[0]);
  const t = info.organisations[0].templates.find((t) => t.id === process.argv[2]);
  console.log(t.merge_tags.map((tag) => `--set ${tag}=CI`).join(" "));' "$work/sandbox.json" "$template")
# shellcheck disable=SC2086 # one --set key=value per merge tag, none with spaces
no_node esign envelope create --template "$template" $set_fields --name "CI Check" --email ci@example.com --json >"$work/create.json"
grep -q '"signing_url"' "$work/create.json" || fail "envelope create printed no signing_url"
printf 'signatory_name,signatory_email\nAda,ada@example.com\nGrace,grace@example.com\nKatherine,kat@example.com\n' >"$work/people.csv"
# shellcheck disable=SC2086
no_node esign envelope batch "$work/people.csv" --template "$template" $set_fields --output "$work/results.jsonl" 2>"$work/batch.err" ||
  fail "the batch failed: $(cat "$work/batch.err")"
[ "$(grep -c '"ok":true' "$work/results.jsonl")" = 3 ] || fail "the batch did not create 3 envelopes: $(cat "$work/batch.err")"
no_node esign completion bash >"$work/completion.bash"
grep -q 'esign __complete' "$work/completion.bash" || fail "the bash completion does not call esign"
if grep -qw node "$work/completion.bash"; then fail "the bash completion calls node"; fi
no_node esign __complete -- envelope c >"$work/complete.txt" || fail "esign __complete failed"
grep -q '^create' "$work/complete.txt" || fail "esign __complete does not offer create"
# esign mcp: the SDK is inside the one script (the npm install loads it from dist/mcp-server.js).
printf '%s\n' \
  '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"ci","version":"1"}}}' \
  '{"jsonrpc":"2.0","method":"notifications/initialized"}' \
  '{"jsonrpc":"2.0","id":2,"method":"tools/list"}' |
  no_node esign mcp >"$work/mcp.out" 2>"$work/mcp.err" || fail "esign mcp failed: $(cat "$work/mcp.err")"
grep -q '"create_envelope"' "$work/mcp.out" || fail "esign mcp listed no create_envelope: $(cat "$work/mcp.out" "$work/mcp.err")"
# esign mcp install: the entry is the executable itself (no node), started and checked before it was written.
no_node esign mcp install cursor >"$work/mcp-install.out" 2>"$work/mcp-install.err" ||
  fail "esign mcp install failed: $(cat "$work/mcp-install.err")"
grep -q 'Checked: it starts and answers as an MCP server' "$work/mcp-install.err" ||
  fail "esign mcp install did not check the entry: $(cat "$work/mcp-install.err")"
node -e '
  const entry = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8")).mcpServers.esign;
  if (entry.command !== process.argv[2] || entry.args.join(" ") !== "mcp") {
    console.error(JSON.stringify(entry));
    process.exit(1);
  }' "$work/home/.cursor/mcp.json" "$esign" || fail "esign mcp install wrote another command than the executable"
echo "installed esign $version ran: --version, --help, sandbox, login, create, batch of 3, completion, mcp, mcp install"

echo "== a tampered archive installs nothing"
mkdir "$work/tampered"
cp release/SHA256SUMS release/*.tar.gz "$work/tampered/"
printf 'x' >>"$work/tampered/esign-$version-linux-x64.tar.gz"
serve "$work/tampered"
rm -rf "$work/home/.local"
if no_node ESIGN_DOWNLOAD_URL="$url" ESIGN_INSTALL_ALLOW_HTTP=1 sh scripts/install.sh 2>"$work/tampered.err"; then
  fail "install.sh accepted a tampered archive"
fi
grep -q 'does not match its sum' "$work/tampered.err" || fail "unexpected message: $(cat "$work/tampered.err")"
[ ! -e "$work/home/.local/bin/esign" ] || fail "a tampered archive was installed"
echo "tampered archive refused: $(head -n 1 "$work/tampered.err")"
