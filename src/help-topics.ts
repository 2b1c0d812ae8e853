// `esign help environment`, `esign help exit-codes` and `esign help accessibility`: the reference
// pages a script author, and a person with a screen reader, needs.
import { EXIT_CODE_MEANINGS } from './help/exit-codes.js';
import { table } from './help/render.js';

const ENVIRONMENT = `Environment variables

Where a setting comes from, highest first:
  command-line flag > environment variable > project file (.esign.json) > stored profile > default

The profile: --profile > ESIGN_PROFILE > the project file's "profile" > the default chosen with
  \`esign profile use\` > "default".
The token (never a flag): ESIGN_TOKEN > ESIGN_TOKEN_COMMAND > the profile's token command or its
  stored token (\`esign login\` keeps one or the other). \`esign status\` says which is used,
  without running a command.

  ESIGN_PROFILE      Profile to use (flag --profile; default "default").
  ESIGN_BASE_URL     API base URL, including /api/v1 (flag --base-url; or stored with
                     \`esign login --base-url\` / \`esign config set base_url\`).
  ESIGN_TOKEN        API token. Wins over the token stored by \`esign login\`. There is no flag:
                     secrets never go on the command line. At least 16 characters: a shorter
                     value is not a token, and is never sent (exit 3 says so).
  ESIGN_TOKEN_COMMAND
                     A command that prints the token (a password manager, a keychain), run through
                     the shell when a command needs the token, and once more after a 401; the
                     first line of its output is the token, never stored or shown. Bounded by the
                     request timeout. Stored per profile with \`esign login --token-command\`.
  ESIGN_TIMEOUT      Seconds a request may take, all of it (flag --timeout; default 30).
  ESIGN_CONFIG_DIR   Folder of config.json (default: $XDG_CONFIG_HOME/esign, ~/.config/esign,
                     or the platform's config folder).
  ESIGN_PROJECT_FILE The project file to use, instead of the nearest .esign.json; used whoever
                     owns it (a .esign.json found on the way up is used only when it is yours).
  ESIGN_CI           GitHub Actions integration: auto (default; on when GITHUB_ACTIONS=true),
                     github, or none (flag --ci-output).
  ESIGN_NO_INPUT     1 or true: never ask questions at a terminal (flag --no-input).
  ESIGN_MCP_CONFIRM  esign mcp: ask (default) or never: whether a person confirms each envelope
                     before it is sent (flag --confirm).
  ESIGN_MCP_ALLOW_DOMAINS
                     esign mcp: the email domains a signatory may be at, comma-separated
                     (flag --allow-domain, repeatable).
  ESIGN_MCP_READ_ONLY
                     esign mcp: true serves only the tools that send nothing (flag --read-only).
  ESIGN_ACCESSIBLE   1: accessible mode (plain lines, numbered questions; see
                     \`esign help accessibility\`); 0 turns it off over ACCESSIBLE and the config.

Read from the wider environment:
  HTTPS_PROXY, HTTP_PROXY, NO_PROXY   Proxies for the API (loopback addresses are never proxied).
  NODE_EXTRA_CA_CERTS                 Extra certificate authorities (a corporate TLS proxy).
  NO_COLOR, FORCE_COLOR               Colour off (NO_COLOR), or forced on or off (FORCE_COLOR=1, =0);
                                      otherwise colour appears only on a terminal.
  TERM=dumb                           No colour (unless forced), no spinner, no progress line.
  LC_ALL, LC_CTYPE, LANG              Not UTF-8 (LANG=C): symbols and spinner in ASCII on a terminal.
  CI                                  Set by CI systems (not false or 0): no spinner, no progress line,
                                      no questions.
  ACCESSIBLE                          1: accessible mode, as ESIGN_ACCESSIBLE (which wins).
  BROWSER                             The browser command for \`envelope create --open\`.
  GITHUB_ACTIONS, GITHUB_OUTPUT, GITHUB_STEP_SUMMARY
                                      GitHub Actions: step outputs, masking and a job summary.

Examples:
  $ ESIGN_PROFILE=staging esign status
  $ ESIGN_TOKEN="$SECRET" ESIGN_BASE_URL=https://esign.example.com/api/v1 esign envelope create …
`;

/** The exit codes, in the words every command's help and man page use (src/help/exit-codes.ts). */
const EXIT_CODES = `Exit codes

${table(
  Object.entries(EXIT_CODE_MEANINGS).map(([code, meaning]) => ({ term: code, text: meaning })),
  100,
).join('\n')}

Examples:
  $ esign envelope create … -q > url.txt || echo "failed with $?"
  $ esign status >/dev/null 2>&1; [ $? -eq 3 ] && esign login
`;

const ACCESSIBILITY = `Accessibility

Accessible mode is for screen readers (VoiceOver, NVDA, Orca, JAWS) and anyone who prefers plain,
steady output. Turn it on with any of:
  ACCESSIBLE=1                        (also honoured by other tools)
  ESIGN_ACCESSIBLE=1                  (esign only; ESIGN_ACCESSIBLE=0 turns it off again)
  esign config set accessible true    (kept in the config file, for every profile)

What it changes:
  - Spinners become plain lines: one when the work starts ("Creating envelope."), one every
    30 seconds while it goes on ("Still working: …"), and one when it ends ("…: done.").
  - A batch's live progress line becomes a plain "progress: …" line every 30 seconds.
  - Questions (the walk-through of \`envelope create\`, the batch's duplicates question) are plain
    lines answered on a line of their own, never redrawn: choices are numbered and chosen by
    number, yes/no questions say which answer Enter gives, and a wrong answer is told on its own
    line before the question is asked again. "Send it?" takes an explicit y or n (Enter alone
    asks again), and what was typed before it was shown is dropped.
  - No meaning is carried by a symbol or a colour alone: ✓ goes (the words beside it say the same),
    → becomes "then", · becomes a semicolon.
  - Nothing is drawn with cursor moves: every line stays as it was written.
It changes nothing for scripts: stdout, --json, -q and the exit codes stay the same.

Related:
  NO_COLOR=1                          No colour at all.
  --no-input, ESIGN_NO_INPUT=1        Never ask questions: every missing flag is an error (exit 2).
  esign login                         The hidden token prompt is one plain line either way.

Examples:
  $ ACCESSIBLE=1 esign envelope create
  $ esign config set accessible true
  $ esign config get accessible
`;

export const HELP_TOPICS: Record<string, string> = {
  environment: ENVIRONMENT,
  'exit-codes': EXIT_CODES,
  accessibility: ACCESSIBILITY,
};
