#!/usr/bin/env bash
# The logic of the composite action (action.yml): install esign from the action's own checkout, put
# `esign` on PATH for this and later steps, and create one envelope from the INPUT_* variables.
# esign itself (--ci-output github) masks the signing URL and writes the step outputs envelope_id,
# signing_url, status and expires_at to $GITHUB_OUTPUT. The URL never reaches the log from here:
# esign's stdout goes to a private file, and the line printed below leaves the URL out.
set -euo pipefail

root="${GITHUB_ACTION_PATH:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}"
temp="${RUNNER_TEMP:-${TMPDIR:-/tmp}}"

# 1. Install: `npm ci` builds dist/ (the prepare script); a checkout that has dist/ already is used as it is.
if [[ ! -f "$root/dist/main.js" ]]; then
  echo "Installing esign from $root (npm ci)…" >&2
  (cd "$root" && npm ci --no-audit --no-fund >&2)
  [[ -f "$root/dist/main.js" ]] || (cd "$root" && npm run build >&2)
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
trap 'rm -f "$envelope"' EXIT
status=0
esign "${args[@]}" >"$envelope" || status=$?
if [[ $status -ne 0 ]]; then
  # esign said why on stderr, and as an ::error annotation.
  exit "$status"
fi
# One line for the log, without the signing URL (use steps.<id>.outputs.signing_url).
node -e '
  const e = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
  console.log(`Envelope ${e.envelope_id} created (${e.status}), expires ${e.expires_at}; its signing URL is in the step output signing_url.`);
' "$envelope"
