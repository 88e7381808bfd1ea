import { sha256 } from '../vocab/index.js';
import { DATASET_VERSION } from './tables.js';

/**
 * Where a file of the dataset lives: `<table>/project=<project>/date=<YYYY-MM-DD>/<invocation>-<rows>.parquet`.
 * Hive partitions, so every engine prunes by project and day; the name holds the invocation
 * (whose rows the file holds, all of them) and a digest of those rows and of the dataset
 * version, so a file is written once and never changed: rows that change get a new name.
 */
export const DATASET_FILE = '_dbtattic_dataset.json';

export interface DatasetFile {
  table: string;
  project: string;
  date: string;
  invocationId: string;
  digest: string;
}

export function datasetFileKey(file: DatasetFile): string {
  return `${partitionPrefix(file.table, file.project)}date=${file.date}/${file.invocationId}-${file.digest}.parquet`;
}

export function partitionPrefix(table: string, project: string): string {
  return `${table}/project=${project}/`;
}

const FILE_KEY = /^([a-z_]+)\/project=([^/]+)\/date=(\d{4}-\d{2}-\d{2})\/(.+)-([0-9a-f]{16})\.parquet$/;

/** The file a key names, or null for anything else (a reader's own files, an engine's markers). */
export function parseDatasetFileKey(key: string): DatasetFile | null {
  const match = FILE_KEY.exec(key);
  if (!match) return null;
  const [, table, project, date, invocationId, digest] = match as unknown as [string, string, string, string, string, string];
  return { table, project, date, invocationId, digest };
}

/** The name part that stands for a file's rows: the store's digest of them, under this dataset version. */
export function rowsDigest(rowDigest: string): string {
  return sha256(`dbtattic-dataset ${DATASET_VERSION}\n${rowDigest}`).slice(0, 16);
}
