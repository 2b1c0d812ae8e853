import { join } from 'node:path';
import type { Env } from '../context.js';

/**
 * The folder for esign's config: ESIGN_CONFIG_DIR, else the platform's config folder for `esign`
 * (the same places conf would pick, without its `-nodejs` suffix).
 */
export function configDir(env: Env, platform: NodeJS.Platform, homedir: string): string {
  if (env.ESIGN_CONFIG_DIR) return env.ESIGN_CONFIG_DIR;
  if (platform === 'darwin') return join(homedir, 'Library', 'Preferences', 'esign');
  if (platform === 'win32')
    return join(env.APPDATA || join(homedir, 'AppData', 'Roaming'), 'esign', 'Config');
  return join(env.XDG_CONFIG_HOME || join(homedir, '.config'), 'esign');
}

export const CONFIG_FILE_NAME = 'config.json';

export function configFilePath(dir: string): string {
  return join(dir, CONFIG_FILE_NAME);
}
