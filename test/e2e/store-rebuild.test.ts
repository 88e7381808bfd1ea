import { linkSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openArchive, type Backend } from '../../src/archive/index.js';
import { captureTarget } from '../../src/capture/index.js';
import { openDatabase, rebuildStore, syncStore } from '../../src/store/index.js';
import { loadSchemaSql } from '../../src/store/schema.js';
import { ARTIFACT_TYPES } from '../../src/vocab/index.js';
import { generateSequence, type Step } from '../../fixtures/generate.mjs';
import { dumpStore, expectSameRows, type StoreDump } from '../helpers/store-dump.js';

/**
 * The store is a cache of the archive: caught up step by step as captures arrive, or rebuilt in
 * one go, it must hold the same rows. Built from the synthetic fixture sequence, in-process.
 */

/**
 * The manifest as dbt first writes it in an invocation, after parsing and before compiling: the
 * step's own manifest without compiled code, a second earlier. Captured before the step's
 * target/, it makes the incremental store ingest each invocation twice, the second time
 * replacing its rows and filling in compiled code, where a rebuild reads only the newest.
 * With `redefine`, one model's description differs too, so the replaced manifest held a node
 * version the newest does not (the corpus has invocations whose two manifests differ so).
 */
function writeParseTimeManifest(targetDir: string, outDir: string, redefine: boolean): boolean {
  const manifest = JSON.parse(readFileSync(path.join(targetDir, 'manifest.json'), 'utf8')) as {
    metadata: { generated_at: string };
    nodes: Record<string, Record<string, unknown>>;
  };
  let compiled = 0;
  for (const node of Object.values(manifest.nodes)) {
    if (typeof node.compiled_code === 'string') compiled++;
    delete node.compiled_code;
    delete node.compiled_path;
    if ('compiled' in node) node.compiled = false;
  }
  const model = Object.values(manifest.nodes).find((node) => node.resource_type === 'model');
  if (redefine && model) model.description = `${String(model.description ?? '')} (as first parsed)`;
  manifest.metadata.generated_at = new Date(Date.parse(manifest.metadata.generated_at) - 1000).toISOString();
  mkdirSync(outDir, { recursive: true });
  writeFileSync(path.join(outDir, 'manifest.json'), JSON.stringify(manifest));
  return compiled > 0;
}

async function runSql(file: string, sql: string): Promise<void> {
  const db = await openDatabase(file, 'write');
  try {
    await db.connection.run(sql);
  } finally {
    db.close();
  }
}

async function schemaVersionOf(file: string): Promise<unknown> {
  const db = await openDatabase(file, 'read');
  try {
    return (await db.connection.runAndReadAll("SELECT value FROM store_meta WHERE key = 'schema_version'")).getRows()[0]?.[0];
  } finally {
    db.close();
  }
}

describe('a store caught up capture by capture, against one rebuilt from the archive', () => {
  const root = mkdtempSync(path.join(os.tmpdir(), 'attic-store-rebuild-'));
  const incremental = path.join(root, 'incremental.duckdb');
  const rebuilt = path.join(root, 'rebuilt.duckdb');
  let backend: Backend;
  let steps: Step[];
  let caughtUp: StoreDump;
  let splitSteps = 0;

  beforeAll(async () => {
    steps = generateSequence(path.join(root, 'sequence'));
    backend = await openArchive(path.join(root, 'archive'), { create: true });
    const start = Date.parse('2024-06-03T12:00:00Z');
    const captureAndSync = async (targetDir: string, at: number): Promise<void> => {
      await captureTarget(backend, { targetDir, artifacts: ARTIFACT_TYPES, phase: 'manual', toolVersion: 'test', branch: 'main', now: new Date(at) });
      const report = await syncStore(backend, incremental, 'wait');
      expect(report, `sync after capturing ${targetDir}`).toMatchObject({ status: 'synced', problems: [] });
    };
    for (const step of steps) {
      const targetDir = path.join(root, 'sequence', step.dir, 'target');
      const parseTime = path.join(root, 'parse-time', step.dir);
      if (step.artifacts_written.includes('manifest.json') && writeParseTimeManifest(targetDir, parseTime, splitSteps === 0)) {
        splitSteps++;
        await captureAndSync(parseTime, start + step.step * 60_000);
      }
      await captureAndSync(targetDir, start + step.step * 60_000 + 30_000);
    }
    caughtUp = await dumpStore(incremental);
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it('holds every row a rebuild derives, table by table', async () => {
    const report = await rebuildStore(backend, rebuilt);
    expect(report).toMatchObject({ invocations: steps.length, problems: [] });
    expect(splitSteps).toBeGreaterThan(3);
    expect(caughtUp.invocation).toHaveLength(steps.length);
    expect(caughtUp.node_version!.length).toBeGreaterThan(0);
    // The tables under node_invocation and node_depends_on hold rows, so that comparing them compares something.
    for (const table of ['node_block', 'invocation_node_block', 'node_version_edge', 'macro_set', 'node_invocation', 'node_depends_on']) {
      expect(caughtUp[table]?.length, table).toBeGreaterThan(0);
    }
    expectSameRows(await dumpStore(rebuilt), caughtUp);
  });

  it('is idempotent: syncing again changes nothing, and re-ingesting every invocation gives the same rows', async () => {
    expect(await syncStore(backend, incremental, 'wait')).toMatchObject({ status: 'synced', invocations: 0, captures: 0 });
    expectSameRows(await dumpStore(incremental), caughtUp);

    // Forgetting which records it has seen makes the next sync ingest every invocation again, over its own rows.
    await runSql(incremental, 'DELETE FROM artifact_capture; DELETE FROM capture_artifact; DELETE FROM capture;');
    expect(await syncStore(backend, incremental, 'wait')).toMatchObject({ status: 'synced', invocations: steps.length, problems: [] });
    expectSameRows(await dumpStore(incremental), caughtUp);
  });

  it('is rebuilt into a new file when its schema version differs; readers keep the old file until the swap', async () => {
    await runSql(incremental, "UPDATE store_meta SET value = 'an-older-schema' WHERE key = 'schema_version'");
    // A second name for the old file: after the swap it still shows what the old inode holds.
    const oldInode = path.join(root, 'old-inode.duckdb');
    linkSync(incremental, oldInode);
    const before = statSync(incremental).ino;
    const seenDuringRebuild: { ino: number; temps: string[] }[] = [];

    const report = await syncStore(backend, incremental, 'wait', () => {
      const temps = readdirSync(root).filter((name) => /^incremental\.duckdb\.rebuild-[0-9a-f]+~\d+~[^~]+~$/.test(name));
      seenDuringRebuild.push({ ino: statSync(incremental).ino, temps });
    });
    expect(report).toMatchObject({ status: 'rebuilt', report: { invocations: steps.length, problems: [] } });
    expect(seenDuringRebuild.length).toBe(steps.length);
    for (const seen of seenDuringRebuild) {
      expect(seen.ino).toBe(before);
      expect(seen.temps).toHaveLength(1);
    }

    expect(statSync(incremental).ino).not.toBe(before);
    expect(readdirSync(root).filter((name) => name.includes('.rebuild-'))).toEqual([]);
    expect(await schemaVersionOf(incremental)).toBe(loadSchemaSql().version);
    expectSameRows(await dumpStore(incremental), caughtUp);

    expect(await schemaVersionOf(oldInode)).toBe('an-older-schema');
    const old = await dumpStore(oldInode);
    expect(old.invocation).toEqual(caughtUp.invocation);
    expect(old.node_invocation).toEqual(caughtUp.node_invocation);
    expect(old.node_block).toEqual(caughtUp.node_block);
  });
});
