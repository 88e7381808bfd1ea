import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { putArtifactRecord, putBlob, putJournalEntry } from '../../src/archive/index.js';
import { newTimeId } from '../../src/vocab/index.js';
import { makeProject, runCliProcess, type CliResult } from '../helpers/cli.js';
import { startCuttingRelay } from '../helpers/tcp-cut.js';
import { announceS3Skip, makeBucket, openTestS3Backend, s3Available, s3Env } from '../helpers/s3.js';
import { syntheticManifest, writeSyntheticTarget } from '../helpers/synthetic-artifacts.js';

/**
 * A team's store in a bucket (Ceph RGW, a real S3 server), used by separate processes that
 * stand for CI runners and laptops, each with its own cache directory (a "machine").
 */
announceS3Skip(
  'remote store end to end (test/e2e/s3-store.test.ts): 8 concurrent writers, the compare-and-swap fallback, a fresh runner, sync after a dead writer',
);

let bucket = '';
beforeAll(async () => {
  if (s3Available) bucket = await makeBucket();
});

const machine = (): string => mkdtempSync(path.join(os.tmpdir(), 'attic-machine-'));

function attic(args: string[], cwd: string, store: string, cache: string, extra: Record<string, string> = {}): Promise<CliResult> {
  return runCliProcess(args, { cwd, env: { ...s3Env(), DBTATTIC_STORE: store, XDG_CACHE_HOME: cache, ...extra } });
}

function project(invocationId: string, minute: number): string {
  const p = makeProject({}, 'team');
  writeSyntheticTarget(
    { invocationId, command: 'build', generatedAt: `2026-03-01T10:${String(minute).padStart(2, '0')}:00.000000Z`, statuses: ['success', 'pass'] },
    p.target,
  );
  return p.dir;
}

interface BranchJson {
  name: string;
  head_capture_id: string | null;
}

describe.skipIf(!s3Available)('a store in S3', () => {
  it.each([
    ['compare-and-swap', {}],
    ['the fallback without compare-and-swap, forced on', { DBTATTIC_S3_COMPARE_AND_SWAP: 'off' }],
  ])(
    '8 runners capture onto one branch at once: every run present, verify passes, the head is the newest (%s)',
    async (_mode, extra: Record<string, string>) => {
      const store = `s3://${bucket}/writers-${randomUUID().slice(0, 8)}`;
      const ids = Array.from({ length: 8 }, () => randomUUID());
      const results = await Promise.all(ids.map((id, i) => attic(['capture', '--branch', 'ci', '--json'], project(id, i), store, machine(), extra)));
      for (const result of results) expect(result, result.stderr).toMatchObject({ exitCode: 0 });
      const captureIds = results.map((r) => (JSON.parse(r.stdout) as { capture_id: string }).capture_id);

      const reader = project(randomUUID(), 59);
      const cache = machine();
      const history = await attic(['history', '--branch', 'ci', '--limit', '100', '--json'], reader, store, cache, extra);
      expect(history.exitCode, history.stderr).toBe(0);
      expect((JSON.parse(history.stdout) as { invocation_id: string }[]).map((h) => h.invocation_id).sort()).toEqual([...ids].sort());
      expect((await attic(['verify'], reader, store, cache, extra)).exitCode).toBe(0);
      const branches = JSON.parse((await attic(['branch', 'list', '--json'], reader, store, cache, extra)).stdout) as BranchJson[];
      expect(branches.find((b) => b.name === 'ci')?.head_capture_id).toBe([...captureIds].sort().at(-1));
    },
    240_000,
  );

  it('a bucket that does not exist: exit 6 naming the bucket, for a capture and a reading command alike', async () => {
    const store = `s3://${bucket}-missing/analytics`;
    const dir = project(randomUUID(), 1);
    for (const args of [['capture'], ['history'], ['state', '--last-success']]) {
      const result = await attic(args, dir, store, machine());
      expect(result.exitCode, `${args.join(' ')}: ${result.stderr}`).toBe(6);
      expect(result.stderr).toContain(`The bucket '${bucket}-missing' does not exist`);
    }
  }, 60_000);

  it('a fresh runner gets the exact bytes the first runner captured from state --last-success, without syncing a store', async () => {
    const store = `s3://${bucket}/fresh-${randomUUID().slice(0, 8)}`;
    const first = project(randomUUID(), 1);
    expect((await attic(['capture', '--branch', 'main'], first, store, machine())).exitCode).toBe(0);

    const runner = makeProject({}, 'team').dir;
    const cache = machine();
    const state = await attic(['state', '--last-success', '--branch', 'main'], runner, store, cache);
    expect(state.exitCode, state.stderr).toBe(0);
    const dir = state.stdout.trim();
    for (const file of ['manifest.json', 'run_results.json']) {
      expect(readFileSync(path.join(dir, file)).equals(readFileSync(path.join(first, 'target', file)))).toBe(true);
    }
    expect(existsSync(path.join(cache, 'dbtattic'))).toBe(true);
    const stores = readFileSync(
      path.join(cache, 'dbtattic', (await import('node:fs')).readdirSync(path.join(cache, 'dbtattic'))[0]!, 'capabilities.json'),
      'utf8',
    );
    expect(JSON.parse(stores)).toMatchObject({ createOnly: true, compareAndSwap: true });
    expect((await import('node:fs')).readdirSync(path.join(cache, 'dbtattic'), { recursive: true }).some((f) => String(f).endsWith('store.duckdb'))).toBe(
      false,
    );
  }, 120_000);

  it('sync finds the records of a writer that died before its capture record, and later only what is new', async () => {
    const store = `s3://${bucket}/dead-${randomUUID().slice(0, 8)}`;
    const reader = project(randomUUID(), 2);
    const cache = machine();
    expect((await attic(['capture'], reader, store, cache)).exitCode).toBe(0);
    expect((await attic(['sync', '--json'], reader, store, cache)).exitCode).toBe(0);

    // A writer that filed its journal entry, the manifest and its record, then died.
    const backend = await openTestS3Backend(`${store}/archive`);
    const dead = randomUUID();
    const captureId = newTimeId();
    const bytes = Buffer.from(syntheticManifest({ invocationId: dead }));
    const sha = (await putBlob(backend, bytes)).id;
    await putJournalEntry(backend, {
      journal_id: captureId,
      captures: [captureId],
      artifact_records: [{ invocation_id: dead, artifact: 'manifest', sha256: sha }],
    });
    await putArtifactRecord(backend, {
      kind: 'artifact',
      format: 1,
      invocation_id: dead,
      invocation_id_source: 'metadata',
      artifact: 'manifest',
      sha256: sha,
      size: bytes.length,
      dbt_schema_version: 'https://schemas.getdbt.com/dbt/manifest/v12.json',
      dbt_version: '1.9.4',
      generated_at: '2026-03-01T11:00:00Z',
      captured_at: new Date().toISOString(),
      capture_id: captureId,
      phase: 'manual',
    });

    const synced = await attic(['sync', '--json'], reader, store, cache);
    expect(JSON.parse(synced.stdout)).toMatchObject({ status: 'synced', invocations: 1, captures: 0 });
    const history = await attic(['history', '--offline', '--json'], reader, store, cache);
    expect((JSON.parse(history.stdout) as { invocation_id: string }[]).map((h) => h.invocation_id)).toContain(dead);
    const again = await attic(['sync', '--json'], reader, store, cache, { DBTATTIC_S3_TRACE: '1' });
    expect(again.stderr.split('\n').filter((line) => line.startsWith('s3 LIST'))).toEqual(['s3 LIST records/journal/']);

    const info = JSON.parse((await attic(['info', '--json'], reader, store, cache)).stdout) as { remote: unknown };
    expect(info.remote).toMatchObject({
      uri: store,
      capabilities: { createOnly: true, compareAndSwap: true, quoteEtag: false },
      branch_heads: 'compare-and-swap',
      cache: { value: expect.stringContaining(path.join(cache, 'dbtattic')), source: 'default' },
    });
  }, 120_000);

  it('push then pull between two local stores through the bucket: both verify, identical histories and branches', async () => {
    const remote = `s3://${bucket}/team-${randomUUID().slice(0, 8)}`;
    const local = (args: string[], cwd: string): Promise<CliResult> => runCliProcess(args, { cwd, env: { ...s3Env(), XDG_CACHE_HOME: cwd } });
    const [a, b] = [project(randomUUID(), 20), project(randomUUID(), 21)];
    expect((await local(['capture', '--branch', 'main'], a)).exitCode).toBe(0);
    expect((await local(['capture', '--branch', 'dev'], b)).exitCode).toBe(0);
    for (const [args, cwd] of [
      [['push', remote], a],
      [['pull', remote], b],
      [['push', remote], b],
      [['pull', remote], a],
    ] as const) {
      const result = await local([...args], cwd);
      expect(result, result.stderr).toMatchObject({ exitCode: 0 });
    }
    const again = JSON.parse((await local(['push', remote, '--json'], a)).stdout) as { artifactRecords: number; captures: number; objects: number };
    expect(again).toMatchObject({ artifactRecords: 0, captures: 0, objects: 0 });
    const view = async (cwd: string): Promise<unknown> => ({
      history: JSON.parse((await local(['history', '--json'], cwd)).stdout),
      branches: JSON.parse((await local(['branch', 'list', '--json'], cwd)).stdout),
    });
    for (const cwd of [a, b]) expect((await local(['verify'], cwd)).exitCode).toBe(0);
    const [viewA, viewB] = [await view(a), await view(b)];
    expect(viewA).toEqual(viewB);
    expect((viewA as { history: unknown[] }).history).toHaveLength(2);
  }, 180_000);

  it('the server gone in the middle of an upload: a clean error, no half-visible record, and the next capture completes the work', async () => {
    const store = `s3://${bucket}/cut-${randomUUID().slice(0, 8)}`;
    const p = makeProject({}, 'team');
    const invocation = randomUUID();
    writeSyntheticTarget({ invocationId: invocation, command: 'build', statuses: ['success'], padNodes: 20_000 }, p.target);
    const cache = machine();
    const relay = await startCuttingRelay(new URL(process.env.AWS_ENDPOINT_URL!), 60_000);
    const failed = await attic(['capture', '--branch', 'main'], p.dir, store, cache, { AWS_ENDPOINT_URL: relay.endpoint });
    expect(failed.exitCode, failed.stderr).toBe(6);
    await relay.cut;
    expect(failed.stderr).toMatch(new RegExp(`Cannot reach ${relay.endpoint} for bucket '${bucket}'`));

    // Artifacts go smallest first: the run results may have been filed whole before the cut; the
    // manifest, cut mid-upload, has no record; no capture record was written.
    const backend = await openTestS3Backend(`${store}/archive`);
    const filed = (await backend.list('records/invocations/')).map((k) => k.key.split('/').at(-1)!.split('-')[0]);
    expect(filed.filter((artifact) => artifact !== 'run_results')).toEqual([]);
    expect(await backend.list('records/captures/')).toEqual([]);
    expect((await attic(['verify'], p.dir, store, cache)).exitCode).toBe(0);

    const retried = await attic(['capture', '--branch', 'main', '--json'], p.dir, store, cache);
    expect(retried.exitCode, retried.stderr).toBe(0);
    const statuses = Object.fromEntries(
      (JSON.parse(retried.stdout) as { artifacts: { artifact: string; status: string }[] }).artifacts
        .filter((a) => a.status !== 'absent')
        .map((a) => [a.artifact, a.status]),
    );
    expect(statuses).toEqual({ manifest: 'captured', run_results: filed.length > 0 ? 'unchanged' : 'captured' });
    expect((await attic(['verify'], p.dir, store, cache)).exitCode).toBe(0);
    const state = await attic(['state', '--last-success'], makeProject({}, 'team').dir, store, machine());
    expect(readFileSync(path.join(state.stdout.trim(), 'manifest.json')).equals(readFileSync(path.join(p.target, 'manifest.json')))).toBe(true);
  }, 180_000);
});
