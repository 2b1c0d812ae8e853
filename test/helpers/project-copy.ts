// A copy of the project to build against a changed dependency: its sources, bin, scripts and
// package.json copied, node_modules linked package by package, and one package copied instead, to
// be changed by the test (a later version's files, another manifest) before the project's own build
// script runs there.
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const ROOT = resolve(import.meta.dirname, '../..');

/** The copy (`project`) and the path of its own copy of `name` (`dependency`). */
export function projectWithOwnCopyOf(name: string): { project: string; dependency: string } {
  const project = join(mkdtempSync(join(tmpdir(), `esign-own-${name}-`)), 'esign');
  for (const part of ['src', 'bin', 'scripts', 'package.json']) {
    cpSync(join(ROOT, part), join(project, part), { recursive: true });
  }
  const modules = join(project, 'node_modules');
  mkdirSync(modules);
  for (const each of readdirSync(join(ROOT, 'node_modules'))) {
    if (each !== name && each !== '.bin') symlinkSync(join(ROOT, 'node_modules', each), join(modules, each));
  }
  const dependency = join(modules, name);
  cpSync(join(ROOT, 'node_modules', name), dependency, { recursive: true });
  return { project, dependency };
}

/** Every .js file under `dir`. */
export function scriptsUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((name) => name.endsWith('.js'))
    .map((name) => join(dir, name));
}

/** Every .js file under `dir`, read and joined. */
export function scriptTextUnder(dir: string): string {
  return scriptsUnder(dir)
    .map((file) => readFileSync(file, 'utf8'))
    .join('\n');
}
