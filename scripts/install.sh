#!/bin/sh
# Installs the esign executable for this machine from a release (the archives and their SHA256SUMS,
# as `npm run release` writes them to release/ and the release workflow publishes them):
#
#   curl --proto '=https' --tlsv1.2 -fsSL https://github.com/<owner>/esign/releases/download/v<version>/install.sh | sh
#
#   ESIGN_DOWNLOAD_URL   the folder that holds esign-<version>-<os>-<arch>.tar.gz and SHA256SUMS
#                        (default: this release on GitHub); https only
#   ESIGN_VERSION        the version to install (default: the one this script was released with)
#   ESIGN_INSTALL_DIR    where `esign` goes (default: ~/.local/bin)
#   ESIGN_INSTALL_REQUIRE_ATTESTATION=1
#                        install only when the archive's build provenance was verified with
#                        `gh attestation verify` (otherwise a check that cannot be done is reported)
#   ESIGN_INSTALL_ALLOW_HTTP=1
#                        allows plain http, to 127.0.0.1 or localhost alone (for tests)
#
# Downloads over https only, redirects included (curl --proto/--proto-redir; wget follows no
# redirect by itself here: each Location is checked). The archive must match its line in
# SHA256SUMS; when the GitHub CLI is there, its build provenance is verified too (`gh attestation
# verify --repo`). The executable is written to a temporary file made by mktemp in the install
# folder, then renamed over `esign`, which must be a regular file if it exists. Anything that fails
# installs nothing and exits 1, saying why. At the end it says which checks it did and which it
# could not do. POSIX sh, with curl or wget, whichever is there.
set -eu

release_version='0.1.0'
release_repository='your-org/esign'

fail() {
  printf 'esign install: %s\n' "$1" >&2
  [ -z "${2:-}" ] || printf '  %s\n' "$2" >&2
  exit 1
}

version=${ESIGN_VERSION:-$release_version}
case $version in
  *[!0-9A-Za-z.+-]* | '') fail "ESIGN_VERSION \"$version\" is not a version (such as $release_version)." ;;
esac
base_url=${ESIGN_DOWNLOAD_URL:-https://github.com/$release_repository/releases/download/v$version}
base_url=${base_url%/}
install_dir=${ESIGN_INSTALL_DIR:-${HOME:?HOME is not set}/.local/bin}

# https, or plain http to this machine when a test asks for it. The authority is compared whole, so
# that neither `127.0.0.1.evil.example` nor `127.0.0.1:80@evil.example` passes for loopback.
scheme=https
case $base_url in
  https://?*) ;;
  http://*)
    authority=${base_url#http://}
    authority=${authority%%/*}
    host=${authority%%:*}
    port=${authority#"$host"}
    port=${port#:}
    case $host in 127.0.0.1 | localhost) loopback=yes ;; *) loopback=no ;; esac
    case $port in *[!0-9]*) loopback=no ;; esac
    if [ "$loopback" = yes ] && [ "${ESIGN_INSTALL_ALLOW_HTTP:-}" = 1 ]; then
      scheme=http
    elif [ "$loopback" = yes ]; then
      fail "Refusing $base_url: downloads are https only." 'Plain http to 127.0.0.1 or localhost is allowed for tests, with ESIGN_INSTALL_ALLOW_HTTP=1.'
    else
      fail "Refusing $base_url: downloads are https only." 'Plain http can be read and changed by anyone on the way; use the https URL of the release.'
    fi
    ;;
  *) fail "Refusing ESIGN_DOWNLOAD_URL \"$base_url\": it must be an https:// URL." ;;
esac

case $(uname -s) in
  Linux) os=linux ;;
  Darwin) os=darwin ;;
  *) fail "No esign executable for this system ($(uname -s))." 'Windows: use install.ps1 (see the README); elsewhere: npm install.' ;;
esac
case $(uname -m) in
  x86_64 | amd64) arch=x64 ;;
  aarch64 | arm64) arch=arm64 ;;
  *) fail "No esign executable for this processor ($(uname -m))." 'Install with npm instead (see the README).' ;;
esac
archive="esign-$version-$os-$arch.tar.gz"

if command -v curl >/dev/null 2>&1; then
  downloader=curl
elif command -v wget >/dev/null 2>&1; then
  downloader=wget
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
tmp=''
cleanup() {
  rm -rf "$work"
  # The temporary file in the install folder, unless it became `esign`.
  [ -z "$tmp" ] || rm -f "$tmp"
}
trap cleanup EXIT
trap 'exit 1' HUP INT TERM

# curl: https only, redirects included (--proto-redir); in a test's http mode the first request may
# be http, a redirect still only https.
curl_download() {
  protocols='=https'
  [ "$scheme" = https ] || protocols='=http,https'
  curl --proto "$protocols" --proto-redir '=https' --tlsv1.2 -fsSL --retry 2 -o "$2" "$1" && return 0
  status=$?
  # 1: curl refused the protocol, which can only be a redirect's here.
  [ "$status" != 1 ] || redirect_refused='a URL that is not https'
  return 1
}

# wget: its --https-only covers recursive downloads alone and an https->http redirect is followed,
# so wget follows none here: each Location is read and taken only when it is https.
wget_download() {
  url=$1
  hops=0
  https_only=--https-only
  [ "$scheme" = https ] || https_only=''
  while :; do
    # shellcheck disable=SC2086 # $https_only is one flag or nothing
    if wget $https_only --secure-protocol=TLSv1_2 --max-redirect=0 --tries=2 --timeout=60 -nv -S \
      -O "$2" "$url" 2>"$work/wget.log"; then
      return 0
    fi
    location=$(sed -n 's/^ *[Ll][Oo][Cc][Aa][Tt][Ii][Oo][Nn]: *//p' "$work/wget.log" | tail -n 1 | tr -d '\r')
    if [ -z "$location" ]; then
      sed -n '/^  /!p' "$work/wget.log" >&2
      return 1
    fi
    # A path on the same server keeps its scheme, which must be https too.
    case $location in
      /*) [ "$scheme" != https ] || location="https://$(printf '%s' "${url#https://}" | cut -d / -f 1)$location" ;;
    esac
    case $location in
      https://?*) url=$location ;;
      *)
        redirect_refused=$location
        return 1
        ;;
    esac
    hops=$((hops + 1))
    [ "$hops" -le 10 ] || return 1
  done
}

redirect_refused=''
download() {
  if "${downloader}_download" "$1" "$2"; then return 0; fi
  [ -z "$redirect_refused" ] ||
    fail "Refusing a redirect from $1 to $redirect_refused: downloads are https only. Nothing installed."
  fail "Could not download $1 (with $downloader): nothing installed."
}

download "$base_url/SHA256SUMS" "$work/SHA256SUMS"
download "$base_url/$archive" "$work/$archive"

# The line for exactly this archive (`<sum>  <name>`, or `<sum> *<name>` from binary mode).
expected=$(awk -v name="$archive" '$2 == name || $2 == "*" name { print $1; exit }' "$work/SHA256SUMS")
[ -n "$expected" ] || fail "SHA256SUMS has no sum for $archive: nothing installed."
actual=$(sha256_of "$work/$archive")
[ "$actual" = "$expected" ] ||
  fail "$archive does not match its sum in SHA256SUMS: nothing installed." "expected $expected, got $actual; the download is damaged or not the release."
checked="  - $archive matches its SHA-256 in SHA256SUMS, both downloaded over $scheme from $base_url"
not_checked=''

# Build provenance, when the GitHub CLI can check it: a failed verification installs nothing; a
# check that cannot be done (no gh, a gh without `attestation`, not logged in) is reported, and
# refused only with ESIGN_INSTALL_REQUIRE_ATTESTATION=1.
verify_command="gh attestation verify $archive --repo $release_repository"
if ! command -v gh >/dev/null 2>&1; then
  not_checked='the GitHub CLI (gh) is not installed'
elif ! gh attestation verify --help >/dev/null 2>&1; then
  not_checked="this gh has no 'attestation' command (gh 2.49 or later has)"
elif ! gh auth status >/dev/null 2>&1; then
  not_checked='gh is not logged in (gh auth login, or GH_TOKEN)'
elif gh attestation verify "$work/$archive" --repo "$release_repository" >"$work/gh.log" 2>&1; then
  checked="$checked
  - its build provenance: $verify_command"
else
  sed 's/^/  gh: /' "$work/gh.log" >&2
  fail "The build provenance of $archive could not be verified ($verify_command): nothing installed." 'The archive was not built by the release workflow of that repository, or gh could not reach GitHub.'
fi
if [ -n "$not_checked" ] && [ "${ESIGN_INSTALL_REQUIRE_ATTESTATION:-}" = 1 ]; then
  fail "ESIGN_INSTALL_REQUIRE_ATTESTATION=1, but the build provenance could not be checked: $not_checked. Nothing installed."
fi

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
target="$install_dir/esign"
# A folder, a link or anything else that is not a plain file is never replaced, nor written through.
if [ -L "$target" ] || { [ -e "$target" ] && [ ! -f "$target" ]; }; then
  fail "$target exists and is not a regular file: nothing installed." 'Move it out of the way, or set ESIGN_INSTALL_DIR to another folder.'
fi
# Into place in one step, from a file only this script made (mktemp creates it, and fails rather than
# follow anything planted under its name): a running esign, or an interrupted install, never sees
# half a file.
tmp=$(mktemp "$install_dir/.esign.XXXXXXXXXX") || fail "Could not create a temporary file in $install_dir."
cat "$binary" >"$tmp" || fail "Could not write to $install_dir."
chmod 755 "$tmp" || fail "Could not make $tmp executable."
mv -f "$tmp" "$target" || fail "Could not write $target."
if [ -e "$tmp" ] || [ -L "$target" ] || [ ! -f "$target" ]; then
  fail "$target changed while it was installed (it is not the file just written): check it."
fi
tmp=''

printf 'Installed esign %s in %s\n' "$version" "$target"
printf 'Checked:\n%s\n' "$checked"
if [ -n "$not_checked" ]; then
  printf 'Not checked: its build provenance, because %s.\n' "$not_checked"
  printf '  SHA256SUMS comes from the same place as the archive: it shows the download is whole, not who built it.\n'
  printf '  To check that too, with the GitHub CLI: %s\n' "$verify_command"
fi
case ":${PATH:-}:" in
  *":$install_dir:"*) ;;
  *) printf '%s is not on your PATH: add it, e.g. export PATH="%s:$PATH"\n' "$install_dir" "$install_dir" ;;
esac
