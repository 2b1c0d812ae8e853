// The file --output names, through symbolic links that may point at a file not written yet
// (src/commands/envelope/batch-output.ts realOutputPath): two names of one file must take one lock.
import { mkdirSync, mkdtempSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { realOutputPath } from '../../src/commands/envelope/batch-output.js';

const folder = () => realpathSync(mkdtempSync(join(tmpdir(), 'esign-output-path-')));

describe('realOutputPath', () => {
  it('follows a chain of links to a file not there yet, relative targets from the folder of each link', () => {
    const dir = folder();
    mkdirSync(join(dir, 'out'));
    mkdirSync(join(dir, 'links'));
    symlinkSync('../out/results.jsonl', join(dir, 'links', 'second.jsonl'));
    symlinkSync(join(dir, 'links', 'second.jsonl'), join(dir, 'first.jsonl'));
    expect(realOutputPath(join(dir, 'first.jsonl'))).toBe(join(dir, 'out', 'results.jsonl'));
    expect(realOutputPath(join(dir, 'links', 'second.jsonl'))).toBe(join(dir, 'out', 'results.jsonl'));
    // Once the file exists, the same answer.
    writeFileSync(join(dir, 'out', 'results.jsonl'), '');
    expect(realOutputPath(join(dir, 'first.jsonl'))).toBe(join(dir, 'out', 'results.jsonl'));
  });

  it("a name that is no link and no file is itself, in its folder's real path", () => {
    const dir = folder();
    mkdirSync(join(dir, 'real'));
    symlinkSync(join(dir, 'real'), join(dir, 'alias'));
    expect(realOutputPath(join(dir, 'alias', 'new.jsonl'))).toBe(join(dir, 'real', 'new.jsonl'));
  });

  it('a loop of links is an error naming the path as given, also a link to itself', () => {
    const dir = folder();
    symlinkSync('self.jsonl', join(dir, 'self.jsonl'));
    expect(() => realOutputPath(join(dir, 'self.jsonl'), 'self.jsonl')).toThrow(
      '--output self.jsonl is a loop of symbolic links',
    );
  });
});
