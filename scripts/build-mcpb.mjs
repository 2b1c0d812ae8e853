// Builds the MCP Bundle (`.mcpb`) of `esign mcp`, for one-click installs in Claude Desktop (and other
// apps that open MCP Bundles): the files the npm package ships (bin/, dist/, …, as `npm pack` lists
// them), a manifest.json, packed and validated with the official tooling (@anthropic-ai/mcpb).
//
// The token is a user setting marked sensitive (the desktop app keeps it in the OS keychain and hands
// it to the server as ESIGN_TOKEN): never a file in the bundle. The other settings become the
// server's own environment variables (ESIGN_BASE_URL, ESIGN_MCP_CONFIRM, ESIGN_MCP_ALLOW_DOMAINS,
// ESIGN_MCP_READ_ONLY, ESIGN_PROJECT_FILE).
//
// Usage: node scripts/build-mcpb.mjs [--out <file.mcpb>]   (npm run build:mcpb builds dist/ first)
// biome-ignore-all lint/suspicious/noTemplateCurlyInString: ${…} is the manifest's own substitution syntax
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const outFlag = process.argv.indexOf('--out');
const out = resolve(
  outFlag > 0 ? process.argv[outFlag + 1] : join(root, 'release', `esign-${pkg.version}.mcpb`),
);
const stage = join(dirname(out), `${pkg.name}-mcpb-${process.pid}`);
/** The mcpb CLI of the pinned @anthropic-ai/mcpb (its package.json is not exported: found from its main file). */
const mcpb = join(dirname(createRequire(import.meta.url).resolve('@anthropic-ai/mcpb')), 'cli', 'cli.js');

/** The manifest (MCPB manifest version 0.3). */
export function manifestFor(version) {
  const tool = (name, description) => ({ name, description });
  return {
    manifest_version: '0.3',
    name: 'esign',
    display_name: 'esign',
    version,
    description:
      'Create and send e-signature envelopes from templates. A person confirms each envelope before it is sent.',
    long_description:
      'esign checks an envelope (template, signatory, merge fields, expiry) against the templates in force and the API’s rules, shows the person what will be sent, and sends it only on their yes. Set "Send without confirmation" only for an assistant trusted to send; "Allowed signatory domains" refuses any other address before anything is sent. Try it against `esign sandbox` first: nothing reaches a real person.',
    author: { name: 'esign' },
    license: pkg.license,
    server: {
      type: 'node',
      entry_point: 'bin/esign.js',
      mcp_config: {
        command: 'node',
        args: ['${__dirname}/bin/esign.js', 'mcp'],
        env: {
          ESIGN_TOKEN: '${user_config.api_token}',
          ESIGN_BASE_URL: '${user_config.base_url}',
          ESIGN_MCP_CONFIRM: '${user_config.confirm}',
          ESIGN_MCP_ALLOW_DOMAINS: '${user_config.allowed_domains}',
          ESIGN_MCP_READ_ONLY: '${user_config.read_only}',
          ESIGN_PROJECT_FILE: '${user_config.project_file}',
        },
      },
    },
    tools: [
      tool(
        'create_envelope',
        'Create and send an envelope: emails the signatory, after a person confirmed it',
      ),
      tool('validate_envelope', 'Check an envelope and return the exact request; sends nothing'),
      tool('list_templates', 'The template names in force, with their fields'),
      tool('get_status', 'The profile, base URL and where the token comes from (masked)'),
    ],
    tools_generated: false,
    prompts_generated: true,
    keywords: ['e-signature', 'envelopes', 'signing', 'documents'],
    compatibility: {
      platforms: ['darwin', 'win32', 'linux'],
      runtimes: { node: `${pkg.engines.node}` },
    },
    user_config: {
      api_token: {
        type: 'string',
        title: 'API token',
        description:
          'Your esign API token (Settings → API Tokens in the dashboard). Kept in your system keychain.',
        sensitive: true,
        required: true,
      },
      base_url: {
        type: 'string',
        title: 'API base URL',
        description: 'The API base URL, including /api/v1 (https://…; http:// only for a local sandbox).',
        required: true,
      },
      confirm: {
        type: 'string',
        title: 'Confirmation',
        description:
          'ask (default): you confirm each envelope before it is sent. never: send without asking, only for an assistant trusted to send.',
        default: 'ask',
        required: false,
      },
      allowed_domains: {
        type: 'string',
        title: 'Allowed signatory domains',
        description:
          'Comma-separated email domains a signatory may be at (example.com, *.example.org); empty allows any.',
        default: '',
        required: false,
      },
      read_only: {
        type: 'boolean',
        title: 'Read-only',
        description: 'Only check envelopes and list templates; never send.',
        default: false,
        required: false,
      },
      project_file: {
        type: 'file',
        title: 'Project file',
        description: 'An .esign.json naming your templates and their fields (optional).',
        default: '',
        required: false,
      },
    },
  };
}

/** The files the npm package ships, as `npm pack` lists them. */
function packageFiles() {
  const listing = execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], {
    cwd: root,
    encoding: 'utf8',
    shell: process.platform === 'win32',
  });
  return JSON.parse(listing)[0].files.map((file) => file.path);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  rmSync(stage, { recursive: true, force: true });
  mkdirSync(stage, { recursive: true });
  try {
    for (const file of packageFiles()) {
      mkdirSync(dirname(join(stage, file)), { recursive: true });
      cpSync(join(root, file), join(stage, file));
    }
    writeFileSync(join(stage, 'manifest.json'), `${JSON.stringify(manifestFor(pkg.version), null, 2)}\n`);
    execFileSync(process.execPath, [mcpb, 'validate', join(stage, 'manifest.json')], { stdio: 'inherit' });
    rmSync(out, { force: true });
    execFileSync(process.execPath, [mcpb, 'pack', stage, out], { stdio: ['ignore', 'ignore', 'inherit'] });
    process.stdout.write(`${out}\n`);
  } finally {
    rmSync(stage, { recursive: true, force: true });
  }
}
