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

echo "== the installed esign, no node on PATH (scripts/exercise-esign.sh)"
bash scripts/exercise-esign.sh "$work/run" "$work/home/.local/bin:$tools"

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
