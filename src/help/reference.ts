// The reference pages (Markdown, docs/commands/) and the man pages (roff, man/), written from the
// same help pages as `--help` (render.ts): the same sections, the same words.
import type { FlagRow, HelpPage } from './render.js';

/** `esign envelope create` → `esign-envelope-create`. */
export function pageName(page: Pick<HelpPage, 'path'>): string {
  return page.path.replaceAll(' ', '-');
}

const GENERATED = 'Generated from the command table by `npm run docs`: edit the declaration, not this page.';

/** Text for a Markdown table cell. */
function cell(text: string): string {
  return text.replaceAll('|', '\\|');
}

function flagTable(rows: FlagRow[]): string[] {
  return [
    '| Flag | Value | Default | Variable | Description |',
    '|---|---|---|---|---|',
    ...rows.map(
      (f) =>
        `| \`${cell(f.spelling)}\` | ${cell(f.kind)} | ${f.default === undefined ? '' : `\`${cell(f.default)}\``} | ${f.env ? `\`${f.env}\`` : ''} | ${cell(f.text)} |`,
    ),
  ];
}

/** A command's reference page, in Markdown. */
export function markdownPage(page: HelpPage): string {
  const out: string[] = [
    `# ${page.path}`,
    '',
    `<!-- ${GENERATED} -->`,
    '',
    page.summary,
    '',
    '## Synopsis',
    '',
  ];
  out.push('```', page.usage, '```');
  if (page.description) out.push('', '## Description', '', page.description);
  if (page.args.length) {
    out.push('', '## Arguments', '', '| Argument | Description |', '|---|---|');
    for (const a of page.args) out.push(`| \`${a.name}\` | ${cell(a.help)} |`);
  }
  if (page.commands.length) {
    out.push('', '## Commands', '', '| Command | Description |', '|---|---|');
    for (const c of page.commands) {
      const aliases = c.aliases.length ? ` (also \`${c.aliases.join('`, `')}\`)` : '';
      out.push(
        `| [\`${page.path} ${c.name}\`](${pageName({ path: `${page.path} ${c.name}` })}.md)${aliases} | ${cell(c.summary)} |`,
      );
    }
  }
  out.push('', '## Flags', '', ...flagTable(page.flags));
  if (page.globalFlags.length) out.push('', '## Global flags', '', ...flagTable(page.globalFlags));
  out.push('', '## Examples', '', '```sh', ...page.examples, '```');
  if (page.exitCodes.length) {
    out.push('', '## Exit codes', '', '| Code | Meaning |', '|---|---|');
    for (const e of page.exitCodes) out.push(`| ${e.code} | ${cell(e.meaning)} |`);
  }
  if (page.related.length) {
    out.push('', '## See also', '');
    for (const line of page.related) out.push(`- \`${line}\``);
  }
  return `${out.join('\n')}\n`;
}

/** Text as roff reads it: backslashes and dashes escaped, no line read as a request. */
function roff(text: string): string {
  const escaped = text.replaceAll('\\', '\\e').replaceAll('-', '\\-');
  return escaped.replace(/^([.'])/gm, '\\&$1');
}

/** A command's man page, in roff (man(7)). */
export function manPage(page: HelpPage): string {
  const name = pageName(page);
  const out: string[] = [
    `.\\" ${GENERATED}`,
    `.TH "${name.toUpperCase()}" "1" "" "esign" "esign manual"`,
    '.SH NAME',
    `${roff(name)} \\- ${roff(page.summary)}`,
    '.SH SYNOPSIS',
    `.B ${roff(page.usage)}`,
  ];
  if (page.description) out.push('.SH DESCRIPTION', roff(page.description));
  if (page.args.length) {
    out.push('.SH ARGUMENTS');
    for (const a of page.args) out.push('.TP', `.I ${roff(a.name)}`, roff(a.help));
  }
  if (page.commands.length) {
    out.push('.SH COMMANDS');
    for (const c of page.commands)
      out.push('.TP', `.B ${roff([c.name, ...c.aliases].join(', '))}`, roff(c.summary));
  }
  const flags = (rows: FlagRow[]) => {
    for (const f of rows) out.push('.TP', `.B ${roff(f.spelling)}`, roff(f.help));
  };
  out.push('.SH OPTIONS');
  flags(page.flags);
  if (page.globalFlags.length) {
    out.push('.SH GLOBAL OPTIONS');
    flags(page.globalFlags);
  }
  out.push(
    '.SH EXAMPLES',
    '.nf',
    ...page.examples.map((line) =>
      roff(line.startsWith('#') || line === '' || line.startsWith(' ') ? line : `$ ${line}`),
    ),
    '.fi',
  );
  if (page.exitCodes.length) {
    out.push('.SH EXIT STATUS');
    for (const e of page.exitCodes) out.push('.TP', `.B ${e.code}`, roff(e.meaning));
  }
  const seeAlso = [
    ...page.commands.map((c) => `${pageName({ path: `${page.path} ${c.name}` })}(1)`),
    ...page.related.map((line) => `\\fB${roff(line)}\\fR`),
  ];
  if (page.path.includes(' ')) seeAlso.unshift('esign(1)');
  if (seeAlso.length) out.push('.SH SEE ALSO', seeAlso.join(', '));
  return `${out.join('\n')}\n`;
}
