#!/bin/sh
# Installs the esign executable for this machine from a release folder (the archives and their
# SHA256SUMS, as `npm run build:binary` writes them to release/):
#
#   curl -fsSL "$URL/install.sh" | ESIGN_DOWNLOAD_URL="$URL" sh
#
#   ESIGN_DOWNLOAD_URL  the folder that holds esign-<version>-<os>-<arch>.tar.gz and SHA256SUMS
#   ESIGN_VERSION       the version to install (default: the one this script was released with)
#   ESIGN_INSTALL_DIR   where `esign` goes (default: ~/.local/bin)
#
# The archive is checked against SHA256SUMS before anything is written: a sum that differs or is
# missing, an unknown platform or a failed download installs nothing and exits 1. POSIX sh, with curl
# or wget, whichever is there.
set -eu

release_version='0.1.0'

fail() {
  printf 'esign install: %s\n' "$1" >&2
  [ -z "${2:-}" ] || printf '  %s\n' "$2" >&2
  exit 1
}

version=${ESIGN_VERSION:-$release_version}
base_url=${ESIGN_DOWNLOAD_URL:-}
install_dir=${ESIGN_INSTALL_DIR:-${HOME:?HOME is not set}/.local/bin}
[ -n "$base_url" ] || fail 'ESIGN_DOWNLOAD_URL is not set.' 'Set it to the folder that holds the release archives and SHA256SUMS.'
case $version in
  *[!0-9A-Za-z.+-]* | '') fail "ESIGN_VERSION \"$version\" is not a version (such as $release_version)." ;;
esac
base_url=${base_url%/}

case $(uname -s) in
  Linux) os=linux ;;
  Darwin) os=darwin ;;
  *) fail "No esign executable for this system ($(uname -s))." 'Windows: download esign-<version>-win-x64.zip and check it against SHA256SUMS; elsewhere: npm install.' ;;
esac
case $(uname -m) in
  x86_64 | amd64) arch=x64 ;;
  aarch64 | arm64) arch=arm64 ;;
  *) fail "No esign executable for this processor ($(uname -m))." 'Install with npm instead (see the README).' ;;
esac
archive="esign-$version-$os-$arch.tar.gz"

if command -v curl >/dev/null 2>&1; then
  download() { curl -fsSL --proto '=http,https' -o "$2" "$1"; }
elif command -v wget >/dev/null 2>&1; then
  download() { wget -q -O "$2" "$1"; }
else
  fail 'Neither curl nor wget is installed: install one of them, then run this again.'
fi
if command -v sha256sum >/dev/null 2>&1; then
  sha256_of() { sha256sum "$1" | cut -d ' ' -f 1; }
elif command -v shasum >/dev/null 2>&1; then
  sha256_of() { shasum -a 256 "$1" | cut -d ' ' -f 1; }
else
  fail 'Neither sha256sum nor shasum is installed: the download cannot be checked, so nothing is installed.'
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/esign-install.XXXXXX")
trap 'rm -rf "$work"' EXIT
trap 'exit 1' HUP INT TERM

download "$base_url/SHA256SUMS" "$work/SHA256SUMS" || fail "Could not download $base_url/SHA256SUMS."
download "$base_url/$archive" "$work/$archive" || fail "Could not download $base_url/$archive."

# The line for exactly this archive (`<sum>  <name>`, or `<sum> *<name>` from binary mode).
expected=$(awk -v name="$archive" '$2 == name || $2 == "*" name { print $1; exit }' "$work/SHA256SUMS")
[ -n "$expected" ] || fail "SHA256SUMS has no sum for $archive: nothing installed."
actual=$(sha256_of "$work/$archive")
[ "$actual" = "$expected" ] ||
  fail "$archive does not match its sum in SHA256SUMS: nothing installed." "expected $expected, got $actual; the download is damaged or not the release."

mkdir "$work/unpacked"
tar -xzf "$work/$archive" -C "$work/unpacked" esign || fail "$archive does not hold esign: nothing installed."
binary="$work/unpacked/esign"
[ -f "$binary" ] && [ ! -L "$binary" ] || fail "$archive does not hold esign as a file: nothing installed."
chmod 755 "$binary"
# macOS runs only signed executables, and adding the application to Node's binary voided its
# signature: sign it ad hoc, as Node's documentation says.
if [ "$os" = darwin ]; then
  codesign --sign - --force "$binary" >/dev/null 2>&1 || fail 'Could not sign esign (codesign --sign -): nothing installed.'
fi
got=$("$binary" --version 2>/dev/null) || fail "The esign in $archive does not run on this machine: nothing installed."
[ "$got" = "$version" ] || fail "$archive holds esign $got, not $version: nothing installed."

mkdir -p "$install_dir" || fail "Could not create $install_dir."
# Into place in one step: a running esign, or an interrupted install, never sees half a file.
cp "$binary" "$install_dir/.esign.install.$$" || fail "Could not write to $install_dir."
mv -f "$install_dir/.esign.install.$$" "$install_dir/esign" || {
  rm -f "$install_dir/.esign.install.$$"
  fail "Could not write $install_dir/esign."
}
printf 'Installed esign %s in %s/esign\n' "$version" "$install_dir"
case ":${PATH:-}:" in
  *":$install_dir:"*) ;;
  *) printf '%s is not on your PATH: add it, e.g. export PATH="%s:$PATH"\n' "$install_dir" "$install_dir" ;;
esac
