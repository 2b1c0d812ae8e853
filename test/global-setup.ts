// Every temporary file and folder of a test run goes under one folder of its own, removed at the
// end: the tests make hundreds (config folders, inputs, results), and a machine keeps none of them.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export default function setup(): () => void {
  const root = mkdtempSync(join(tmpdir(), 'esign-tests-'));
  process.env.TMPDIR = root; // inherited by the test workers, and by the processes they spawn with it
  return () => rmSync(root, { recursive: true, force: true });
}
