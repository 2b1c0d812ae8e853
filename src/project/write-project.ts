// Writing the project file, decided once: a template entry set in place with jsonc-parser (the rest
// of the file, its order, indentation and line ends stay as they were), a new file from templates,
// and the write itself atomic (a temporary file beside it, then a rename), ending with a newline.
import {
  closeSync,
  fchmodSync,
  fsyncSync,
  linkSync,
  openSync,
  renameSync,
  statSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { applyEdits, type FormattingOptions, modify } from 'jsonc-parser/lib/esm/main.js';
import type { TemplateEntry, TemplateFields } from './template-entry.js';

/** The indentation and line end a file already uses (two spaces and \n for a new one). */
export function formattingOf(text: string): FormattingOptions {
  const indent = /^([ \t]+)\S/m.exec(text)?.[1] ?? '  ';
  return {
    insertSpaces: !indent.startsWith('\t'),
    tabSize: indent.startsWith('\t') ? 1 : indent.length,
    eol: text.includes('\r\n') ? '\r\n' : '\n',
  };
}

/**
 * `text` with the template entry `name` set to `entry`, under `templates` (or under
 * `profiles.<profile>.templates`), every other byte as it was; a trailing line end kept or added.
 */
export function withTemplateEntry(
  text: string,
  name: string,
  entry: TemplateEntry,
  profile?: string,
): string {
  const path = profile === undefined ? ['templates', name] : ['profiles', profile, 'templates', name];
  const formatting = formattingOf(text);
  const source = text.trim() === '' ? '{}' : text;
  const edited = applyEdits(source, modify(source, path, entry, { formattingOptions: formatting }));
  return edited.endsWith('\n') ? edited : `${edited}${formatting.eol}`;
}

/** A new project file naming these templates, formatted as `JSON.stringify` with two spaces. */
export function newProjectText(templates: Record<string, TemplateEntry>): string {
  return `${JSON.stringify({ templates }, null, 2)}\n`;
}

/**
 * An entry after `esign templates set`: the id given (or the one there was), and the fields there
 * were with the changes asked for. A plain id stays a plain id when no field is declared.
 */
export function updatedEntry(
  before: TemplateEntry | undefined,
  id: string,
  change: (fields: TemplateFields) => TemplateFields,
  fieldsChanged: boolean,
): TemplateEntry {
  const fields = typeof before === 'object' ? before.fields : undefined;
  if (!fieldsChanged) return fields === undefined ? id : { id, fields };
  return { id, fields: change({ ...(fields ?? {}) }) };
}

/**
 * Writes `text` to `path` atomically: a temporary file in the same folder, flushed, then renamed
 * over it (or, with `exclusive`, linked to it, which fails when a file is already there, so a
 * file made meanwhile is never replaced). A crash leaves the old file or the new one, never half.
 */
export function writeFileAtomic(path: string, text: string, exclusive = false): void {
  const temporary = join(dirname(path), `.${basename(path)}.${process.pid}.${Date.now()}.tmp`);
  const fd = openSync(temporary, 'wx', 0o644);
  try {
    // A file replaced keeps its permissions (the umask decides a new one's, as for any file).
    const mode = existingMode(path);
    if (mode !== undefined) fchmodSync(fd, mode);
    writeSync(fd, text);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  try {
    if (exclusive) {
      linkSync(temporary, path);
      unlinkSync(temporary);
    } else renameSync(temporary, path);
  } catch (error) {
    try {
      unlinkSync(temporary);
    } catch {
      // already gone
    }
    throw error;
  }
}

function existingMode(path: string): number | undefined {
  try {
    return statSync(path).mode & 0o7777;
  } catch {
    return undefined;
  }
}
