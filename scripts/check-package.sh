#!/usr/bin/env bash
# The npm tarball as a person installs it: `npm install -g` into an empty prefix, offline (the
# package has no dependency, so there is nothing to fetch: a dependency would fail the install),
# then checks that esign alone was installed (one package, no node_modules inside it), and runs the
# whole flow from it (scripts/exercise-esign.sh) with a PATH of the prefix's bin and node alone.
# Prints what the install took: packages, megabytes on disk, seconds.
#
#   scripts/check-package.sh TARBALL
set -euo pipefail
cd "$(dirname "$0")/.."
tarball=$(realpath "$1")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "check-package: $*" >&2; exit 1; }

prefix="$work/prefix"
start=$(date +%s%N)
npm install -g --offline --no-audit --no-fund --cache "$work/npm-cache" --prefix "$prefix" "$tarball" \
  >"$work/install.out" 2>&1 || fail "npm install -g --offline failed: $(cat "$work/install.out")"
seconds=$(awk -v ns="$(($(date +%s%N) - start))" 'BEGIN { printf "%.1f", ns / 1e9 }')
installed=$(ls "$prefix/lib/node_modules")
[ "$installed" = esign ] || fail "the prefix holds more than esign: $installed"
[ ! -e "$prefix/lib/node_modules/esign/node_modules" ] || fail "esign was installed with dependencies: $(ls "$prefix/lib/node_modules/esign/node_modules")"
[ -f "$prefix/lib/node_modules/esign/THIRD-PARTY-LICENSES.txt" ] || fail "the package holds no THIRD-PARTY-LICENSES.txt"
megabytes=$(du -sm "$prefix" | cut -f1)
echo "npm install -g of $(basename "$tarball"): 1 package (esign), ${megabytes} MB, ${seconds} s"

# node alone beside the prefix's bin: the npm shim starts `node`, and nothing else is needed.
mkdir -p "$work/node-only"
ln -s "$(command -v node)" "$work/node-only/node"
# A package with man pages (man/*.1) must have them where `man` finds them: npm links the files
# package.json's "man" names into the prefix's share/man.
man_path=
# (The listing into a file first: grep -q may close the pipe early, which pipefail takes for failure.)
tar -tzf "$tarball" >"$work/listing.txt"
if grep -q '^package/man/.*\.1$' "$work/listing.txt"; then man_path="$prefix/share/man"; fi
bash scripts/exercise-esign.sh "$work/run" "$prefix/bin:$work/node-only" ${man_path:+"$man_path"}
