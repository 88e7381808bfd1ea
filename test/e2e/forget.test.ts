import { mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FsBackend } from '../../src/archive/backends/fs.js';
import { file } from '../helpers/archive-builder.js';
import { makeProject, runCli, runCliProcess } from '../helpers/cli.js';
import { announceS3Skip, makeBucket, s3Available, s3Env } from '../helpers/s3.js';
import { writeSyntheticTarget } from '../helpers/synthetic-artifacts.js';

/**
 * forget and prune through the CLI, on an archive filed to order: six builds on main, an hour
 * apart; the two newest failed. With keep_last 2 (dbtattic.yml), the two newest stay by policy,
 * the newest success stays as slim CI's baseline, the other three go.
 */
const dir = mkdtempSync(path.join(os.tmpdir(), 'dbtattic-forget-'));
const project = path.join(dir, 'project');
const store = path.join(project, '.dbtattic');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const ids = Array.from({ length: 6 }, (_, i) => `inv${i}-4a2f-4c1e-9d7b-3e0c5f8a1b2c`);
const cli = (args: string[]) => runCli(args, { cwd: project });

function bytesUnder(root: string): number {
  let total = 0;
  for (const name of readdirSync(root)) {
    const full = path.join(root, name);
    total += statSync(full).isDirectory() ? bytesUnder(full) : statSync(full).size;
  }
  return total;
}

beforeAll(async () => {
  mkdirSync(project, { recursive: true });
  writeFileSync(path.join(project, 'dbt_project.yml'), 'name: shop\nprofile: shop\n');
  const backend = new FsBackend(path.join(store, 'archive'));
  await backend.putIfAbsent('FORMAT', Buffer.from('dbtattic-archive 1\n'));
  for (const [i, id] of ids.entries()) {
    const at = new Date(Date.UTC(2026, 0, 5, 8 + i)).toISOString();
    await file(backend, {
      invocationId: id,
      target: 'prod',
      statuses: i >= 4 ? ['success', 'error'] : ['success'],
      generatedAt: at,
      capturedAt: at,
      branch: 'main',
    });
  }
});

describe('forget and prune from the command line', () => {
  it('refuses to run without a policy, and says where one goes', async () => {
    const out = await cli(['forget']);
    expect(out.exitCode).toBe(2);
    expect(out.stderr).toMatch(/--keep-last/);
    expect(out.stderr).toMatch(/retention:/);
  });

  it('names the nearest setting for a typo under retention:', async () => {
    writeFileSync(path.join(project, 'dbtattic.yml'), 'retention:\n  keep_lats: 2\n');
    const out = await cli(['forget', '--dry-run']);
    expect(out.exitCode).toBe(2);
    expect(out.stderr).toMatch(/keep_last/);
  });

  it('--dry-run lists what would go and why each kept one stays; info shows what the policy frees; forget and prune free exactly that', async () => {
    writeFileSync(path.join(project, 'dbtattic.yml'), 'retention:\n  keep_last: 2\n');
    const dry = await cli(['forget', '--dry-run', '--json']);
    expect(dry.exitCode).toBe(0);
    const plan = JSON.parse(dry.stdout);
    expect(plan.forget.map((d: { invocation_id: string }) => d.invocation_id).sort()).toEqual([ids[0], ids[1], ids[2]]);
    expect(Object.fromEntries(plan.keep.map((d: { invocation_id: string; reasons: string[] }) => [d.invocation_id, d.reasons]))).toEqual({
      [ids[5]!]: ['last'],
      [ids[4]!]: ['last'],
      [ids[3]!]: ['newest success'],
    });
    const text = await cli(['forget', '--dry-run']);
    expect(text.stdout).toMatch(/would forget/);
    expect(text.stdout).toMatch(/newest success/);

    const info = JSON.parse((await cli(['info', '--json'])).stdout);
    expect(info.retention).toMatchObject({ would_forget: 3, would_keep: 3, would_free_bytes: plan.would_free.bytes });

    // the store has all six before; it must follow the forget at its next sync
    expect(JSON.parse((await cli(['history', '--json'])).stdout)).toHaveLength(6);
    const before = bytesUnder(path.join(store, 'archive'));
    const forgot = await cli(['forget', '--json']);
    expect(forgot.exitCode).toBe(0);
    const pruned = await cli(['prune', '--grace', '0', '--json']);
    expect(pruned.exitCode).toBe(0);
    // forget adds its own two small records (the forget record and its journal entry): not part of what it frees
    const added =
      bytesUnder(path.join(store, 'archive', 'records', 'forgotten')) +
      statSync(path.join(store, 'archive', 'records', 'journal', `${JSON.parse(forgot.stdout).forget_id}.json`)).size;
    expect(before - bytesUnder(path.join(store, 'archive')) + added).toBe(plan.would_free.bytes);

    const history = JSON.parse((await cli(['history', '--json'])).stdout);
    expect(history.map((r: { invocation_id: string }) => r.invocation_id).sort()).toEqual([ids[3], ids[4], ids[5]]);
    expect((await cli(['verify'])).exitCode).toBe(0);
  });
});

announceS3Skip('forget and prune on S3, the cache following through the journal');

describe.skipIf(!s3Available)('forget and prune on a store in S3', () => {
  it("a runner's cache drops forgotten invocations at its next sync, which lists only the journal", async () => {
    const remote = `s3://${await makeBucket()}/forget`;
    const cache = mkdtempSync(path.join(dir, 'cache-'));
    const p = makeProject({}, 'team');
    const attic = (args: string[], extra: Record<string, string> = {}) =>
      runCliProcess(args, { cwd: p.dir, env: { ...s3Env(), DBTATTIC_STORE: remote, XDG_CACHE_HOME: cache, ...extra } });
    const runs = ['11111111-0000-4000-8000-000000000001', '22222222-0000-4000-8000-000000000002', '33333333-0000-4000-8000-000000000003'];
    for (const [i, invocationId] of runs.entries()) {
      writeSyntheticTarget({ invocationId, command: 'build', generatedAt: `2026-03-01T10:0${i}:00.000000Z`, statuses: ['success'] }, p.target);
      expect((await attic(['capture', '--branch', 'main'])).exitCode).toBe(0);
    }
    expect(JSON.parse((await attic(['history', '--json'])).stdout)).toHaveLength(3);

    const forgot = JSON.parse((await attic(['forget', '--keep-last', '1', '--json'])).stdout);
    expect(forgot.forget.map((d: { invocation_id: string }) => d.invocation_id).sort()).toEqual([runs[0], runs[1]]);
    const synced = await attic(['sync', '--json'], { DBTATTIC_S3_TRACE: '1' });
    expect(synced.stderr.split('\n').filter((line) => line.startsWith('s3 LIST'))).toEqual(['s3 LIST records/journal/']);
    const history = JSON.parse((await attic(['history', '--offline', '--json'])).stdout) as { invocation_id: string }[];
    expect(history.map((h) => h.invocation_id)).toEqual([runs[2]]);

    const pruned = JSON.parse((await attic(['prune', '--grace', '0', '--json'])).stdout);
    expect(pruned.files).toBeGreaterThan(0);
    const verified = await attic(['verify', '--json']);
    expect(JSON.parse(verified.stdout).problems).toEqual([]);
  }, 180_000);
});
