import type { Backend } from '../archive/index.js';
import { AtticError } from '../errors.js';
import { DATASET_FILE } from './layout.js';
import { DATASET_TABLES, DATASET_VERSION } from './tables.js';

/**
 * `_dbtattic_dataset.json` at the dataset's root says what the dataset is, so that a reader (or
 * a later dbtattic) knows the version of its columns. Written once, by the first export; an
 * export of another version refuses to mix its files in. The leading `_` keeps it out of
 * Spark's and Hive's file listings.
 */
export interface DatasetDescription {
  format: 'dbtattic-dataset';
  version: number;
  layout: string;
  tables: Record<string, string>;
}

export function describeDataset(): DatasetDescription {
  return {
    format: 'dbtattic-dataset',
    version: DATASET_VERSION,
    layout: '<table>/project=<project>/date=<YYYY-MM-DD>/<invocation_id>-<digest>.parquet',
    tables: Object.fromEntries(DATASET_TABLES.map((t) => [t.name, t.grain])),
  };
}

export async function claimDataset(target: Backend): Promise<void> {
  const wanted = describeDataset();
  await target.putIfAbsent(DATASET_FILE, Buffer.from(`${JSON.stringify(wanted, null, 2)}\n`));
  const found = parsedDescription(await target.get(DATASET_FILE));
  if (found?.format !== 'dbtattic-dataset') {
    throw new AtticError('usage', `${target.location} holds a ${DATASET_FILE} that is not a dbtattic dataset's. Export to an empty directory or prefix.`);
  }
  if (found.version !== DATASET_VERSION) {
    throw new AtticError(
      'usage',
      `The dataset at ${target.location} is version ${found.version}; this dbtattic writes version ${DATASET_VERSION}. Export to a new location (or use the dbtattic that wrote it).`,
      { version: found.version },
    );
  }
}

function parsedDescription(bytes: Buffer | undefined): Partial<DatasetDescription> | undefined {
  try {
    return bytes ? (JSON.parse(bytes.toString('utf8')) as Partial<DatasetDescription>) : undefined;
  } catch {
    return undefined;
  }
}
