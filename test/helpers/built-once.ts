import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

/**
 * A directory built once per test run and shared by every test file that asks for it, in any
 * worker: fixture histories cost seconds to build and are read-only templates, copied by the
 * tests that change them. It lives under the run's temp root (test/support/temp-root.ts), so the
 * next run builds it afresh from the code it tests. The first worker to ask builds it; the others
 * wait for the marker that says it is whole. A builder that fails gives the lock back, and the
 * next to ask tries again.
 */
const WAIT_MS = 300_000;
const building = new Map<string, Promise<string>>();

export function builtOnce(name: string, build: (dir: string) => Promise<void>): Promise<string> {
  const known = building.get(name);
  if (known) return known;
  const made = buildShared(name, build);
  building.set(name, made);
  made.catch(() => building.delete(name));
  return made;
}

async function buildShared(name: string, build: (dir: string) => Promise<void>): Promise<string> {
  const dir = path.join(os.tmpdir(), `built-once-${name}`);
  const done = path.join(dir, '.built');
  const lock = `${dir}.lock`;
  const deadline = Date.now() + WAIT_MS;
  while (!existsSync(done)) {
    if (takeLock(lock)) {
      try {
        await buildInto(dir, build);
      } finally {
        rmSync(lock, { recursive: true, force: true });
      }
    } else {
      if (Date.now() > deadline) throw new Error(`${name}: another worker held ${lock} for over ${WAIT_MS / 1000} s`);
      await sleep(100);
    }
  }
  return dir;
}

function takeLock(lock: string): boolean {
  try {
    mkdirSync(lock);
    return true;
  } catch {
    return false;
  }
}

async function buildInto(dir: string, build: (dir: string) => Promise<void>): Promise<void> {
  if (existsSync(path.join(dir, '.built'))) return;
  // Built where it stays: what it holds may name its own path (a store names its archive).
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  await build(dir);
  writeFileSync(path.join(dir, '.built'), '');
}
