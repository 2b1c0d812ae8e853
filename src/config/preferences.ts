// The person's own preferences, kept at the top level of config.json for every profile:
// `accessible` (accessible mode) and `token_age_reminder` (the reminder to rotate an old token).
// `esign config set <key> true|false` writes them through the config store (store.ts, whose schema
// checks them). Reading one here takes neither the schema nor conf: the terminal decision asks for
// `accessible` when a spinner or a prompt is about to be shown, and a broken config file is
// reported by the commands that read the config, never by a spinner. Every command's start loads
// this module: node:fs is taken when a preference is read, since an ES-module import of it would load
// fs/promises and readline for every `--help` and Tab.
import { MAX_SETTINGS_BYTES, readRegularFileSync } from '../fs/regular-file.js';
import { configFilePath } from './paths.js';

/** The keys of the config file that are preferences of the person, not settings of a profile. */
export const PREFERENCE_KEYS = ['accessible', 'token_age_reminder'] as const;
export type PreferenceKey = (typeof PREFERENCE_KEYS)[number];

/** What a preference is when it is not set: accessible mode off, the token-age reminder on. */
export const PREFERENCE_DEFAULTS: Readonly<Record<PreferenceKey, boolean>> = {
  accessible: false,
  token_age_reminder: true,
};

/** A preference's stored value: true or false, or undefined when it is not set (or cannot be read). */
export function storedPreference(dir: string, key: PreferenceKey): boolean | undefined {
  try {
    const text = readRegularFileSync(configFilePath(dir), MAX_SETTINGS_BYTES).text.replace(/^\uFEFF/, '');
    const value: unknown = JSON.parse(text)?.[key];
    return typeof value === 'boolean' ? value : undefined;
  } catch {
    return undefined;
  }
}

/** A preference as typed on the command line: true, false, on, off, yes, no, 1 or 0. */
export function preferenceValue(text: string): boolean | undefined {
  const value = text.trim().toLowerCase();
  if (['true', 'on', 'yes', '1'].includes(value)) return true;
  if (['false', 'off', 'no', '0'].includes(value)) return false;
  return undefined;
}
