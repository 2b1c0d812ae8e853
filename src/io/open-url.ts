// --open: the signing URL in the person's browser. $BROWSER first, as gh and git do (a command,
// split on white space, the URL added as its last argument, or in place of a `%s`); otherwise the
// platform's opener. Opening is a courtesy after the envelope exists: every failure is a warning.
import { spawn } from 'node:child_process';
import type { Env } from '../context.js';

export interface Opener {
  command: string;
  args: string[];
}

/**
 * Only web links are handed to a browser. The URL comes from the server: a `file:` or `javascript:`
 * link, or one that starts with `-` (an option to the opener), is refused.
 */
export function openableUrl(url: string): boolean {
  try {
    const parsed = new URL(url);
    return (parsed.protocol === 'https:' || parsed.protocol === 'http:') && !url.startsWith('-');
  } catch {
    return false;
  }
}

/** What would open `url` here: $BROWSER, else `open` (macOS), the URL handler (Windows), xdg-open. */
export function openerFor(url: string, env: Env, platform: NodeJS.Platform): Opener {
  const browser = env.BROWSER?.trim();
  if (browser) {
    const [command = browser, ...rest] = browser.split(/\s+/);
    const args = rest.some((arg) => arg.includes('%s'))
      ? rest.map((arg) => arg.replaceAll('%s', url))
      : [...rest, url];
    return { command, args };
  }
  if (platform === 'darwin') return { command: 'open', args: [url] };
  // rundll32 takes the URL as one argument: no cmd.exe, so no `&` in a query string is ever a command.
  if (platform === 'win32') return { command: 'rundll32', args: ['url.dll,FileProtocolHandler', url] };
  return { command: 'xdg-open', args: [url] };
}

/**
 * Starts the opener and resolves once it has started (the browser may run on for hours: it is not
 * waited for). Resolves with why it could not, or undefined.
 */
export function openUrl(url: string, env: Env, platform: NodeJS.Platform): Promise<string | undefined> {
  if (!openableUrl(url)) return Promise.resolve('the signing URL is not an http(s) link');
  const { command, args } = openerFor(url, env, platform);
  return new Promise((resolve) => {
    const child = spawn(command, args, { stdio: 'ignore', detached: true, windowsHide: true });
    child.once('error', (error: NodeJS.ErrnoException) =>
      resolve(error.code === 'ENOENT' ? `${command} was not found` : `${command}: ${error.message}`),
    );
    child.once('spawn', () => {
      child.unref();
      resolve(undefined);
    });
  });
}
