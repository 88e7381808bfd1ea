import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openArchive } from '../../../src/archive/index.js';
import { captureTarget } from '../../../src/capture/index.js';
import { openDatabase, syncStore, type Database } from '../../../src/store/index.js';
import { plainResult } from '../../../src/store/db/plain-rows.js';
import { refreshDerivedTables } from '../../../src/store/derived/derived-tables.js';
import { ARTIFACT_TYPES } from '../../../src/vocab/index.js';
import { generateSequence, type Step } from '../../../fixtures/generate.mjs';
import { builtOnce } from '../../helpers/built-once.js';

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

const READS = /^\s*(SELECT|WITH|FROM|DESCRIBE|SUMMARIZE)\b/i;
/** What ingest derives (store/derived/derived-tables.ts), the views over it, and run_result, which takes in run_result_pending. */
const READS_DERIVED =
  /\b(v_\w+|change_macro|manifest_invocation|node_change|node_runtime|run_history|test_history|test_run_state|runtime_merged|run_result)\b/i;
const START = Date.parse('2024-06-03T12:00:00Z');

/** The fixture history captured and synced once per test run (test/helpers/built-once.ts): sequence/, archive/, store.duckdb. */
function fixtureTemplate(): Promise<string> {
  return builtOnce('fixture-store', async (root) => {
    const seqDir = path.join(root, 'sequence');
    const steps = generateSequence(seqDir);
    const backend = await openArchive(path.join(root, 'archive'), { create: true });
    for (const step of steps) {
      const targetDir = path.join(seqDir, step.dir, 'target');
      await captureTarget(backend, {
        targetDir,
        artifacts: ARTIFACT_TYPES,
        phase: 'manual',
        toolVersion: 'test',
        branch: 'main',
        now: new Date(START + step.step * 60_000),
      });
    }
    await syncStore(backend, path.join(root, 'store.duckdb'), 'wait');
  });
}

/** A copy of the fixture store of its own (tests edit it); the sequence's files are the template's, read only. */
export async function buildFixtureStore(): Promise<FixtureStore> {
  const template = await fixtureTemplate();
  const seqDir = path.join(template, 'sequence');
  const steps = JSON.parse(readFileSync(path.join(seqDir, 'steps.json'), 'utf8')) as Step[];
  const root = mkdtempSync(path.join(os.tmpdir(), 'dbtattic-views-'));
  const file = path.join(root, 'store.duckdb');
  copyFileSync(path.join(template, 'store.duckdb'), file);
  const db = await openDatabase(file, 'write');
  let editing = false;
  let edited = false;
  const query = async (sql: string, params: (string | number)[] = []): Promise<Record<string, unknown>[]> => {
    // Edits are many statements and their reads few: deriving again only for a read of what is
    // derived, and only when something was written since, keeps a test's cost linear in its edits.
    if (editing && edited && READS_DERIVED.test(sql)) {
      await rederive(db);
      edited = false;
    }
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
      edited = true;
      const stopWatching = watchWrites(db, () => (edited = true));
      try {
        return await work();
      } finally {
        stopWatching();
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

/** Calls `onWrite` whenever a statement other than a read goes through the store's connection. */
function watchWrites(db: Database, onWrite: () => void): () => void {
  const connection = db.connection;
  const { run, runAndReadAll } = connection;
  connection.run = (sql, ...rest) => {
    if (!READS.test(sql)) onWrite();
    return run.call(connection, sql, ...rest);
  };
  connection.runAndReadAll = (sql, ...rest) => {
    if (!READS.test(sql)) onWrite();
    return runAndReadAll.call(connection, sql, ...rest);
  };
  return () => {
    connection.run = run;
    connection.runAndReadAll = runAndReadAll;
  };
}

/** What ingest derives (store/derived/derived-tables.ts) derived again for every invocation, edited or not. */
async function rederive(db: Database): Promise<void> {
  const ids = (await db.connection.runAndReadAll('SELECT invocation_id FROM invocation')).getRows().map(([id]) => String(id));
  await refreshDerivedTables(db.connection, ids, ids);
}
