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
    // A function, not the URL, as the replacement: `$&`, `$'` and `$$` in a URL are text.
    const args = rest.some((arg) => arg.includes('%s'))
      ? rest.map((arg) => arg.replaceAll('%s', () => url))
      : [...rest, url];
    return { command, args };
  }
  if (platform === 'darwin') return { command: 'open', args: [url] };
  // rundll32 takes the URL as one argument: no cmd.exe, so no `&` in a query string is ever a command.
  if (platform === 'win32') return { command: 'rundll32', args: ['url.dll,FileProtocolHandler', url] };
  return { command: 'xdg-open', args: [url] };
}

/**
 * How long the opener's exit status is waited for. An opener (xdg-open, open, the URL handler)
 * hands the link over and exits at once, with a status that says whether it could; a browser named
 * in $BROWSER may run on for hours, and is let go after this.
 */
const OPENER_WAIT_MS = 2000;

/**
 * Starts the opener and waits briefly for its exit status. Resolves with why the link was not
 * opened (it could not start, or it exited with a failure), or undefined (it exited 0, or still
 * runs: a browser). Never rejects: opening is a courtesy after the envelope exists.
 */
export function openUrl(url: string, env: Env, platform: NodeJS.Platform): Promise<string | undefined> {
  if (!openableUrl(url)) return Promise.resolve('the signing URL is not an http(s) link');
  const { command, args } = openerFor(url, env, platform);
  return new Promise((resolve) => {
    let child: ReturnType<typeof spawn>;
    try {
      child = spawn(command, args, { stdio: 'ignore', detached: true, windowsHide: true });
    } catch (error) {
      // A URL longer than an argument may be (E2BIG) is thrown here, not emitted.
      const code = (error as NodeJS.ErrnoException).code;
      resolve(
        code === 'E2BIG'
          ? `the signing URL (${url.length} characters) is longer than a command's argument may be`
          : `${command}: ${(error as Error).message}`,
      );
      return;
    }
    const waited = setTimeout(() => {
      child.unref();
      resolve(undefined);
    }, OPENER_WAIT_MS);
    child.once('error', (error: NodeJS.ErrnoException) => {
      clearTimeout(waited);
      resolve(error.code === 'ENOENT' ? `${command} was not found` : `${command}: ${error.message}`);
    });
    child.once('exit', (code, signal) => {
      clearTimeout(waited);
      if (code === 0) resolve(undefined);
      else
        resolve(
          code === null ? `${command} was ended by ${signal}` : `${command} exited with status ${code}`,
        );
    });
  });
}
