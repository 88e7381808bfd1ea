/**
 * Export: the store's history as an open Parquet dataset that other engines read (Spark, Trino,
 * Athena, Snowflake, BigQuery, DuckDB). Terms:
 * - dataset: a directory or S3 prefix of tables, Hive-partitioned by project and day.
 * - file: the rows one invocation owns in one table, named by their digest, written once.
 * - project: the partition that keeps many projects' exports apart (project-identity.ts).
 * Reads the store; writes through the archive's backends (create-only puts, deletes).
 */
export { exportDataset, type ExportOptions, type ExportReport } from './export-dataset.js';
export { describeDataset, type DatasetDescription } from './dataset-file.js';
export { DATASET_TABLES, DATASET_VERSION } from './tables.js';
export { projectKey, normalizedRemote } from './project-identity.js';
export { planExport, type ExportPlan, type ExportFacts } from './plan.js';
export { exportHistory, type ExportRequest } from './export-history.js';
