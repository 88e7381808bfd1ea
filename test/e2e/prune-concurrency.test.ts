import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { listArtifactRecords, openArchive, readBlob, type Backend } from '../../src/archive/index.js';
import { REPO_DIR, runCliProcess } from '../helpers/cli.js';
import { announceS3Skip, makeBucket, s3Available, s3Env } from '../helpers/s3.js';

/**
 * Prune beside four capturing processes (test/helpers/prune-race.mjs): each round files new
 * content, forgets it and prunes with no grace period while the capturers file manifests made
 * of the same chunks. Without the writer leases this loses objects (a capture reuses a chunk
 * that prune then deletes); with them, every capture keeps every object and verify is clean.
 */
const RACE = path.join(REPO_DIR, 'test', 'helpers', 'prune-race.mjs');
const work = mkdtempSync(path.join(os.tmpdir(), 'dbtattic-prune-race-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));
announceS3Skip('prune beside captures on S3');

interface Line {
  capture?: string;
  stored?: number;
  size?: number;
  prune?: number;
  files?: number;
  chunks?: number;
}

function race(mode: 'capture' | 'prune', store: string, dir: string, count: number, tag = '', env: Record<string, string> = {}): Promise<Line[]> {
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      [RACE, mode, store, dir, String(count), tag],
      { env: { PATH: process.env.PATH, ...env }, maxBuffer: 1 << 24 },
      (error, stdout, stderr) => {
        if (error) reject(new Error(`${mode} ${tag} failed: ${stderr}`));
        else
          resolve(
            stdout
              .split('\n')
              .filter(Boolean)
              .map((line) => JSON.parse(line) as Line),
          );
      },
    );
  });
}

async function raceAndCheck(
  store: string,
  dir: string,
  captures: number,
  rounds: number,
  env: Record<string, string>,
  backend: () => Promise<Backend>,
): Promise<void> {
  const [pruned, ...captured] = await Promise.all([
    race('prune', store, dir, rounds, '', env),
    ...[1, 2, 3, 4].map((t) => race('capture', store, dir, captures, String(t), env)),
  ]);
  const lines = captured.flat();
  // the race was real: prune deleted objects, and captures reused chunks they did not write
  expect(pruned.reduce((sum, p) => sum + (p.chunks ?? 0), 0)).toBeGreaterThan(0);
  expect(lines.filter((l) => (l.stored ?? 0) < (l.size ?? 0) / 2).length).toBeGreaterThan(0);

  const verified = await runCliProcess(['verify', '--json', '--store', store], { cwd: dir, env });
  expect(JSON.parse(verified.stdout).problems).toEqual([]);
  expect(verified.exitCode).toBe(0);
  const archive = await backend();
  const records = await listArtifactRecords(archive);
  for (const { capture } of lines) {
    const mine = records.filter((r) => r.invocation_id === capture);
    expect(mine.map((r) => r.artifact).sort(), `records of ${capture}`).toEqual(['manifest', 'run_results']);
    for (const r of mine) expect((await readBlob(archive, r.sha256)).length).toBe(r.size);
  }
}

describe('prune beside four capturing processes', () => {
  it('on the filesystem: no capture loses an object, verify is clean', async () => {
    const store = path.join(work, 'fs-store');
    await raceAndCheck(store, work, 30, 20, {}, () => openArchive(path.join(store, 'archive'), { create: false }));
  }, 600_000);

  it.skipIf(!s3Available)(
    'on S3 (Ceph RGW): no capture loses an object, verify is clean',
    async () => {
      const store = `s3://${await makeBucket()}/race`;
      const dir = mkdtempSync(path.join(work, 's3-'));
      const remote = { s3: undefined, cacheDir: path.join(dir, 'cache'), env: process.env };
      await raceAndCheck(store, dir, 12, 8, s3Env(), () => openArchive(`${store}/archive`, { create: false, remote }));
    },
    600_000,
  );
});
