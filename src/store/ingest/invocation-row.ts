import type { DuckDBConnection } from '@duckdb/node-api';
import type { InvocationFacts } from '../../extract/index.js';
import type { CaptureFacts } from './capture-facts.js';

/** One row per invocation: artifact facts from extract, capture facts from the archive. */
export async function writeInvocationRow(
  connection: DuckDBConnection,
  invocationId: string,
  facts: InvocationFacts | null,
  capture: CaptureFacts,
): Promise<void> {
  const row: Record<string, string | number | boolean | null> = {
    ...(facts ?? {}),
    invocation_id: invocationId,
    command: facts?.command ?? capture.run?.dbtCommand ?? null,
    // dbt writes the target into run_results only when --target was typed; else it is the one
    // dbt resolved when the capture (or `run`) read the context.
    target: facts?.target ?? capture.target?.name ?? null,
    target_source: facts?.target ? 'run_results args' : (capture.target?.source ?? null),
    capture_phases: capture.capture_phases,
    git_sha: capture.git.sha,
    git_branch: capture.git.branch,
    git_dirty: capture.git.dirty,
    git_diff_hash: capture.git.diffHash,
    git_remote: capture.git.remoteUrl,
    git_source: capture.git.branchSource,
    run_command_line: capture.run?.commandLine ?? null,
    run_exit_code: capture.run?.exitCode ?? null,
    branch: capture.branch,
    run_id: capture.run_id,
    context_taken: capture.context_taken,
    catalog_provider: capture.catalog.provider,
    catalog_status: capture.catalog.status,
    catalog_snapshot_id: capture.catalog.snapshotId,
    catalog_atomic: capture.catalog.atomic,
    catalog_detail: capture.catalog.detail,
  };
  const columns = Object.keys(row);
  const placeholders = columns.map((_, i) => `$${i + 1}`).join(', ');
  await connection.run(`INSERT INTO invocation (${columns.join(', ')}) VALUES (${placeholders})`, Object.values(row));
}
