import { accessSync, constants, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/**
 * Every temporary file of a test run (the tests' own, and those of the CLI and dbt stand-ins
 * they start) goes under one folder, removed when the run ends, passed or failed. Tests make
 * their folders with os.tmpdir(), which reads TMPDIR; a test that forgot to clean up used to
 * leave its folder in /tmp for good (thousands after a few runs).
 *
 * The folder is on a tmpfs where the machine has one that runs programs (/dev/shm): every store
 * and archive a test makes fsyncs its writes, and on a disk those waits were a quarter of a
 * store test's time. DBTATTIC_TEST_TMPDIR names another parent (a disk, to test on one).
 */
export default function setup(): () => void {
  const root = mkdtempSync(path.join(parentDir(), 'dbtattic-test-run-'));
  process.env.TMPDIR = root;
  // A `run` leaves its store's catch-up to a detached child (cli/after-capture.ts), which may
  // still be writing when the run ends: retried rather than failing on a folder filling again.
  return () => rmSync(root, { recursive: true, force: true, maxRetries: 10 });
}

const TMPFS = '/dev/shm';

function parentDir(): string {
  const chosen = process.env.DBTATTIC_TEST_TMPDIR;
  if (chosen) return chosen;
  return runnableTmpfs(TMPFS) ? TMPFS : os.tmpdir();
}

/** A tmpfs mount, writable, and not mounted noexec: tests write scripts there and run them. */
function runnableTmpfs(dir: string): boolean {
  try {
    accessSync(dir, constants.W_OK);
    const mount = readFileSync('/proc/mounts', 'utf8')
      .split('\n')
      .map((line) => line.split(' '))
      .find((fields) => fields[1] === dir);
    return mount !== undefined && mount[2] === 'tmpfs' && !mount[3]!.split(',').includes('noexec');
  } catch {
    return false;
  }
}
