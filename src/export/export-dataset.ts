import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Backend } from '../archive/index.js';
import type { Database } from '../store/index.js';
import { forEachLimited } from '../vocab/index.js';
import { claimDataset } from './dataset-file.js';
import { datasetFileKey, parseDatasetFileKey, partitionPrefix, type DatasetFile } from './layout.js';
import { digestScope, planExport, type ExportPlan } from './plan.js';
import { copyTableFiles, readHistoryOrder, readNeededFiles, readPartitions, type InvocationPartition } from './store-rows.js';
import { DATASET_TABLES, INVOCATION_TABLE } from './tables.js';

export interface ExportOptions {
  /** `export.project` of dbtattic.yml or --project: the partition every invocation goes to. */
  project: string | null;
  /** Invocations some forget record names: their files leave the dataset. */
  forgotten: ReadonlySet<string>;
  dryRun?: boolean;
}

export interface ExportReport {
  location: string;
  projects: string[];
  written: number;
  deleted: number;
  unchanged: number;
  bytes: number;
  dryRun: boolean;
}

/** Requests at once: object stores answer many small PUTs best in parallel. */
const PARALLEL_PUTS = 8;

/** The store's history into the dataset at `target`: plan from the store and a listing, then apply. */
export async function exportDataset(db: Database, target: Backend, options: ExportOptions): Promise<ExportReport> {
  const partitions = await readPartitions(db, options.project);
  const projects = [...new Set([...partitions.values()].map((p) => p.project))].sort();
  const listed = await listDataset(target, [...projects, ...[...partitions.values()].map((p) => p.nameOnly)]);
  const needed = await readNeeded(db, partitions, listed, options.forgotten);
  const plan = planExport({ needed, invocations: new Set(partitions.keys()), forgotten: options.forgotten, listed });
  const report = {
    location: target.location,
    projects,
    written: plan.write.length,
    deleted: plan.delete.length,
    unchanged: plan.unchanged,
    bytes: 0,
    dryRun: options.dryRun === true,
  };
  if (options.dryRun) return report;
  await claimDataset(target);
  report.bytes = await writeFiles(db, target, plan.write);
  await forEachLimited(plan.delete, PARALLEL_PUTS, (file) => target.delete(datasetFileKey(file)));
  return report;
}

/**
 * The files the store's invocations need: the invocation table's of all (one cheap scan), the
 * other tables' digested for the invocations `digestScope` names, and as listed for the settled
 * ones before them, which keep their files. An export after one more run digests that run.
 */
async function readNeeded(
  db: Database,
  partitions: ReadonlyMap<string, InvocationPartition>,
  listed: readonly DatasetFile[],
  forgotten: ReadonlySet<string>,
): Promise<DatasetFile[]> {
  const invocationFiles = await readNeededFiles(db, INVOCATION_TABLE, partitions);
  const scope = digestScope({ order: await readHistoryOrder(db), invocationFiles, forgotten, listed });
  const needed = [...invocationFiles];
  for (const table of DATASET_TABLES) if (table !== INVOCATION_TABLE) needed.push(...(await readNeededFiles(db, table, partitions, scope)));
  const settled = (file: DatasetFile): boolean => scope !== null && partitions.has(file.invocationId) && !scope.has(file.invocationId);
  return [...needed, ...listed.filter((file) => file.table !== INVOCATION_TABLE.name && settled(file))];
}

/**
 * Files under each table's partitions of these projects, and of the names of the store's dbt
 * projects, with or without a remote's digest: files an identity no longer names are found too
 * (a project that got a git remote or an export.project), and a file of an invocation of this
 * store is ours to replace. Prefixes that another covers are listed once.
 */
async function listDataset(target: Backend, projects: readonly string[]): Promise<DatasetFile[]> {
  const prefixes = [...new Set(projects.map((p) => p.replace(/-[0-9a-f]{8}$/, '')))].filter((p, _, all) => !all.some((q) => q !== p && p.startsWith(q)));
  const keys = await Promise.all(DATASET_TABLES.flatMap((t) => prefixes.map((p) => target.list(partitionPrefix(t.name, p).slice(0, -1)))));
  return keys.flat().flatMap((k) => parseDatasetFileKey(k.key) ?? []);
}

/**
 * Each table's new files, written by DuckDB into a private temp directory, then put create-only
 * under their final names: a reader sees a file whole or not at all, and a killed export leaves
 * nothing in the dataset but whole files (the backend's own temp, for a directory, is under a
 * dot-name every engine skips).
 */
async function writeFiles(db: Database, target: Backend, files: ExportPlan['write']): Promise<number> {
  const scratch = await mkdtemp(path.join(os.tmpdir(), 'dbtattic-export-'));
  let bytes = 0;
  try {
    // The invocation table last: its file is what marks an invocation exported (digestScope).
    for (const table of [...DATASET_TABLES.filter((t) => t !== INVOCATION_TABLE), INVOCATION_TABLE]) {
      const mine = files.filter((f) => f.table === table.name);
      if (mine.length === 0) continue;
      const dir = path.join(scratch, table.name);
      await copyTableFiles(
        db,
        table,
        mine.map((f) => f.invocationId),
        dir,
      );
      await forEachLimited(mine, PARALLEL_PUTS, async (file) => {
        const data = await readOwnerFile(dir, file.invocationId);
        await target.putIfAbsent(datasetFileKey(file), data);
        bytes += data.length;
      });
      await rm(dir, { recursive: true, force: true });
    }
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
  return bytes;
}

/** The one file DuckDB wrote for an owner's partition. */
async function readOwnerFile(dir: string, owner: string): Promise<Buffer> {
  const partition = path.join(dir, `owner=${owner}`);
  const names = (await readdir(partition)).filter((n) => n.endsWith('.parquet'));
  if (names.length !== 1) throw new Error(`DuckDB wrote ${names.length} files for ${owner} in ${partition}, not one`);
  return readFile(path.join(partition, names[0]!));
}
