import { forgottenInvocations, openArchive, openBackend } from '../archive/index.js';
import type { AtticConfig } from '../config/resolve.js';
import { AtticError } from '../errors.js';
import { withCurrentStore, type ReadNotice } from '../store/index.js';
import { exportDataset, type ExportReport } from './export-dataset.js';

export interface ExportRequest {
  dryRun?: boolean;
  onNotice?: (notice: ReadNotice) => void;
}

/**
 * The configured project's history into its configured dataset: the store caught up first, as
 * for any read, then read in one read-only connection, so the rows written and the digests
 * that name them are of one state of the store.
 */
export async function exportHistory(config: AtticConfig, request: ExportRequest = {}): Promise<ExportReport> {
  const to = config.export.to;
  if (!to) throw new AtticError('usage', 'Where to? Pass --to DIR or --to s3://bucket/prefix, or set export: {to: …} in dbtattic.yml.');
  const target = await openBackend(to.archiveLocation, to.remote);
  const forgotten = await forgottenInvocations(await openArchive(config.archiveLocation, { create: false, remote: config.remote }));
  return withCurrentStore(
    config,
    (db) => exportDataset(db, target, { project: config.export.project?.value ?? null, forgotten, dryRun: request.dryRun }),
    undefined,
    request.onNotice,
  );
}
