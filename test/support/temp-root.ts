import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/**
 * Every temporary file of a test run (the tests' own, and those of the CLI and dbt stand-ins
 * they start) goes under one folder, removed when the run ends, passed or failed. Tests make
 * their folders with os.tmpdir(), which reads TMPDIR; a test that forgot to clean up used to
 * leave its folder in /tmp for good (thousands after a few runs).
 */
export default function setup(): () => void {
  const root = mkdtempSync(path.join(os.tmpdir(), 'dbtattic-test-run-'));
  process.env.TMPDIR = root;
  return () => rmSync(root, { recursive: true, force: true });
}
