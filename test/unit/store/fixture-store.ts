import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openArchive } from '../../../src/archive/index.js';
import { captureTarget } from '../../../src/capture/index.js';
import { openDatabase, syncStore, type Database } from '../../../src/store/index.js';
import { plainResult } from '../../../src/store/plain-rows.js';
import { refreshDerivedTables } from '../../../src/store/derived-tables.js';
import { ARTIFACT_TYPES } from '../../../src/vocab/index.js';
import { generateSequence, type Step } from '../../../fixtures/generate.mjs';

/**
 * A store built the way users build one: every step of the synthetic fixture sequence captured
 * from its target/ in order, then synced. The steps' JSON stays beside it, so tests can work
 * out each answer from the artifacts and compare it with what a view says.
 */
export interface FixtureStore {
  steps: Step[];
  db: Database;
  /** The artifact as the step's command wrote it; null when the step did not write it (a stale copy from an earlier step). */
  written<T>(step: Step, file: 'manifest.json' | 'run_results.json' | 'sources.json'): T | null;
  /** The same artifact's bytes as written, for what depends on them (digests of entries). */
  writtenBytes(step: Step, file: 'manifest.json' | 'run_results.json' | 'sources.json'): Buffer | null;
  query(sql: string, params?: (string | number)[]): Promise<Record<string, unknown>[]>;
  /**
   * Runs `work` inside a transaction that is always rolled back: edits for one test only. Its
   * queries first derive again what ingest derives from the edited rows (run_history, test_history, node_runtime), as a
   * catch-up would after the same rows were ingested.
   */
  withEdits<T>(work: () => Promise<T>): Promise<T>;
  close(): void;
}

const START = Date.parse('2024-06-03T12:00:00Z');

export async function buildFixtureStore(): Promise<FixtureStore> {
  const root = mkdtempSync(path.join(os.tmpdir(), 'dbtattic-views-'));
  const seqDir = path.join(root, 'sequence');
  const steps = generateSequence(seqDir);
  const backend = await openArchive(path.join(root, 'archive'), { create: true });
  for (const step of steps) {
    const targetDir = path.join(seqDir, step.dir, 'target');
    await captureTarget(backend, { targetDir, artifacts: ARTIFACT_TYPES, phase: 'manual', toolVersion: 'test', branch: 'main', now: new Date(START + step.step * 60_000) });
  }
  const file = path.join(root, 'store.duckdb');
  await syncStore(backend, file, 'wait');
  const db = await openDatabase(file, 'write');
  let editing = false;
  const query = async (sql: string, params: (string | number)[] = []): Promise<Record<string, unknown>[]> => {
    if (editing) await rederive(db);
    return plainResult(await db.connection.runAndReadAll(sql, params)).rows;
  };
  const writtenBytes = (step: Step, file: string): Buffer | null => {
    if (!step.artifacts_written.includes(file)) return null;
    const full = path.join(seqDir, step.dir, 'target', file);
    return existsSync(full) ? readFileSync(full) : null;
  };
  return {
    steps,
    db,
    query,
    written<T>(step: Step, file: string): T | null {
      const bytes = writtenBytes(step, file);
      return bytes ? (JSON.parse(bytes.toString('utf8')) as T) : null;
    },
    writtenBytes,
    async withEdits<T>(work: () => Promise<T>): Promise<T> {
      await db.connection.run('BEGIN TRANSACTION');
      editing = true;
      try {
        return await work();
      } finally {
        editing = false;
        await db.connection.run('ROLLBACK');
      }
    },
    close() {
      db.close();
      rmSync(root, { recursive: true, force: true });
    },
  };
}

/** A run result as the fixture's run_results.json writes it, with the step that wrote it. */
export interface Execution {
  unique_id: string;
  status: string;
  execution_time: number;
  step: Step;
}

const COMPILE_ONLY = new Set(['compile', 'generate', 'show']);
const COMPLETED = new Set(['success', 'pass', 'warn', 'fail']);

/** Every result of a command that runs nodes, in history order (compile and docs generate only compile). */
export function executionsOf(fx: FixtureStore): Execution[] {
  return fx.steps.flatMap((step) => {
    const runResults = fx.written<{ args: { which: string }; results: Omit<Execution, 'step'>[] }>(step, 'run_results.json');
    if (!runResults || COMPILE_ONLY.has(runResults.args.which)) return [];
    return runResults.results.map((result) => ({ ...result, step }));
  });
}

/** Per node, the executions that ran to the end (success, pass, warn, fail), oldest first. */
export function completedByNode(fx: FixtureStore): Map<string, Execution[]> {
  const byNode = new Map<string, Execution[]>();
  for (const e of executionsOf(fx).filter((e) => COMPLETED.has(e.status))) byNode.set(e.unique_id, [...(byNode.get(e.unique_id) ?? []), e]);
  return byNode;
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length / 2;
  return Number.isInteger(mid) ? (sorted[mid - 1]! + sorted[mid]!) / 2 : sorted[Math.floor(mid)]!;
}

/** What ingest derives (store/derived-tables.ts) derived again for every invocation, edited or not. */
async function rederive(db: Database): Promise<void> {
  const ids = (await db.connection.runAndReadAll('SELECT invocation_id FROM invocation')).getRows().map(([id]) => String(id));
  await refreshDerivedTables(db.connection, ids, ids);
}
