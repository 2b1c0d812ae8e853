#!/usr/bin/env bash
# The logic of the composite action (action.yml): install esign from the action's own checkout, put
# `esign` on PATH for this and later steps, and create one envelope from the INPUT_* variables.
# esign itself (--ci-output github) masks the signing URL and writes the step outputs envelope_id,
# signing_url, status and expires_at to $GITHUB_OUTPUT. The URL never reaches the log from here:
# esign's stdout goes to a private file, and the line printed below leaves the URL out.
set -euo pipefail

root="${GITHUB_ACTION_PATH:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}"
temp="${RUNNER_TEMP:-${TMPDIR:-/tmp}}"

# 0. No token (an unset secret, or a pull request from a fork, which gets no secrets): say which input,
# before anything is installed. Exit 3, as esign's own "no token".
if [[ -z "${ESIGN_TOKEN:-}" ]]; then
  message="The action's \`token\` input is empty: no API token reached esign."
  hint="Pass it from a secret: \`token: \${{ secrets.ESIGN_TOKEN }}\`. Workflows run for pull requests from forks get no secrets."
  echo "::error title=esign%3A unauthenticated (exit 3)::${message}%0A${hint}" >&2
  printf 'error: %s\nhint: %s\n' "$message" "$hint" >&2
  exit 3
fi

# 1. Install. esign runs from one bundle (dist/, every runtime dependency inside it), so running
# needs no node_modules at all; only building it does: the runtime dependencies, which the bundle
# takes in, and esbuild. So a checkout without dist/ gets exactly those: `npm ci --omit=dev` (as
# locked, scripts off: `prepare` would try to build before esbuild is there), then esbuild alone, at
# the lockfile's version, in a folder of its own under $RUNNER_TEMP, linked in only for the build.
# None of the other dev dependencies (TypeScript, Biome, vitest, …) is installed. A checkout that
# has dist/ already is used as it is.
if [[ ! -f "$root/dist/main.js" ]]; then
  echo "Installing esign from $root (npm ci --omit=dev, and esbuild to build it)…" >&2
  esbuild_version="$(cd "$root" && node -p 'require("./package-lock.json").packages["node_modules/esbuild"].version')"
  build_tools="$temp/esign-build-tools"
  (cd "$root" && npm ci --omit=dev --ignore-scripts --no-audit --no-fund >&2)
  npm install --prefix "$build_tools" --no-save --ignore-scripts --no-audit --no-fund "esbuild@$esbuild_version" >&2
  linked=""
  if [[ ! -e "$root/node_modules/esbuild" ]]; then
    mkdir -p "$root/node_modules"
    ln -s "$build_tools/node_modules/esbuild" "$root/node_modules/esbuild"
    linked=1
  fi
  (cd "$root" && node scripts/build.mjs >&2)
  if [[ -n "$linked" ]]; then rm "$root/node_modules/esbuild"; fi
fi

# 2. On PATH: a small launcher in $RUNNER_TEMP, named in $GITHUB_PATH for the steps that follow.
bin_dir="$temp/esign-bin"
mkdir -p "$bin_dir"
printf '#!/usr/bin/env bash\nexec node %q "$@"\n' "$root/bin/esign.js" >"$bin_dir/esign"
chmod +x "$bin_dir/esign"
if [[ -n "${GITHUB_PATH:-}" ]]; then echo "$bin_dir" >>"$GITHUB_PATH"; fi
export PATH="$bin_dir:$PATH"

# 3. The create, from the inputs.
# --ci-output github: the action's outputs do not depend on ESIGN_CI or GITHUB_ACTIONS.
args=(envelope create --json --ci-output github)
add() { if [[ -n "$2" ]]; then args+=("$1" "$2"); fi; }
add --base-url "${INPUT_BASE_URL:-}"
add --profile "${INPUT_PROFILE:-}"
add --template "${INPUT_TEMPLATE:-}"
add --name "${INPUT_NAME:-}"
add --email "${INPUT_EMAIL:-}"
add --phone "${INPUT_PHONE:-}"
add --expires-in-days "${INPUT_EXPIRES_IN_DAYS:-}"
# Multi-line inputs: one data file or one key=value a line (a CR from a Windows editor is dropped).
while IFS= read -r line || [[ -n "$line" ]]; do
  line="${line%$'\r'}"
  add --data "$line"
done <<<"${INPUT_DATA:-}"
while IFS= read -r line || [[ -n "$line" ]]; do
  line="${line%$'\r'}"
  add --set "$line"
done <<<"${INPUT_SET:-}"

envelope="$(mktemp "$temp/esign-envelope.XXXXXX")"
said="$(mktemp "$temp/esign-stderr.XXXXXX")"
trap 'rm -f "$envelope" "$said"' EXIT
status=0
esign "${args[@]}" >"$envelope" 2>"$said" || status=$?
# esign's stderr, for the log: its workflow commands (the mask, the ::error annotation) as they are,
# and under --json its error object as the message and hint a person reads. That object holds server
# text (a field named `::stop-commands::x` in a detail line): written here, it is made inert as esign
# makes its own stderr (src/text/runner-commands.ts): a line-leading `::` after what the runner skips
# gets `:\x3a`, a `##[` gets `##\x5b`, so that it cannot act as a workflow command.
node -e '
  const skipped = "[\\p{White_Space}\\p{Default_Ignorable_Code_Point}\\p{Cc}\\p{Cf}]";
  const ignored = "(?:(?![\\n\\r])[\\p{Default_Ignorable_Code_Point}\\p{Cc}\\p{Cf}])";
  const lineStart = new RegExp(`((?:^|[\\n\\r])${skipped}*:${ignored}*):`, "gu");
  const hashes = new RegExp(`(#${ignored}*#${ignored}*)\\[`, "gu");
  // The person wrote inputs, not flags: `--email` is the `email` input, in the log and the annotation.
  const inputs = ["base-url", "profile", "template", "name", "email", "phone", "expires-in-days", "data", "set"];
  const flags = new RegExp(`See \`esign envelope create --help\` for the flags and examples\\.|--(${inputs.join("|")})(?![\\w-])`, "g");
  const asInputs = (text) =>
    text.replace(flags, (flag, input) => (input ? `the \`${input}\` input` : "See the inputs in the action\u2019s action.yml."));
  const say = (text) => console.error(asInputs(text).replace(lineStart, "$1\\x3a").replace(hashes, "$1\\x5b"));
  for (const line of require("fs").readFileSync(process.argv[1], "utf8").split("\n")) {
    let error;
    try { error = JSON.parse(line).error; } catch {}
    if (!error || typeof error.message !== "string") {
      // The workflow commands of esign as they are, but for the words of an annotation.
      if (line) console.error(line.startsWith("::error ") ? asInputs(line) : line);
      continue;
    }
    say(`error: ${error.message}`);
    for (const detail of error.details ?? []) say(`  ${detail}`);
    for (const note of error.notes ?? []) say(String(note));
    if (error.hint) say(`hint: ${error.hint}`);
  }
' "$said"
if [[ $status -ne 0 ]]; then
  exit "$status"
fi
# One line for the log, without the signing URL (use steps.<id>.outputs.signing_url).
node -e '
  const e = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
  console.log(`Envelope ${e.envelope_id} created (${e.status}), expires ${e.expires_at}; its signing URL is in the step output signing_url.`);
' "$envelope"
