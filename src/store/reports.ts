import type { DuckDBConnection } from '@duckdb/node-api';
import { compareMacros, compareNodes, compareRuntimes, compareStatuses, previousInvocation, readInvocation, type Row } from './compare.js';

/**
 * Everything one command needs to explain a run, or what changed between two: the triplet
 * (code: git and the code fingerprint; data: the catalog snapshot; run: dbt's invocation id
 * and our run id) and the differences.
 */
export interface Triplet {
  run: { invocation_id: unknown; run_id: unknown };
  code: { git_sha: unknown; git_branch: unknown; git_dirty: unknown; git_diff_hash: unknown; git_remote: unknown; git_source: unknown; code_fingerprint: unknown; context_taken: unknown };
  data: { catalog_provider: unknown; catalog_status: unknown; catalog_snapshot_id: unknown; catalog_atomic: unknown; catalog_detail: unknown };
}

export interface Changes {
  from: string;
  to: string;
  same_code: boolean | null;
  git: { from: unknown; to: unknown; range: string | null };
  catalog: { from: unknown; to: unknown; changed: boolean | null };
  nodes: Row[];
  node_counts: Record<string, number>;
  /** Macros added, removed or changed (`code`, `docs`, `other`): a changed macro changes every model that calls it. */
  macros: Row[];
  macro_counts: Record<string, number>;
  statuses: Row[];
  runtimes: Row[];
}

export interface InspectReport {
  invocation: Row;
  triplet: Triplet;
  previous: string | null;
  changes: Changes | null;
}

export function tripletOf(row: Row): Triplet {
  return {
    run: { invocation_id: row.invocation_id, run_id: row.run_id },
    code: {
      git_sha: row.git_sha, git_branch: row.git_branch, git_dirty: row.git_dirty, git_diff_hash: row.git_diff_hash,
      git_remote: row.git_remote, git_source: row.git_source, code_fingerprint: row.code_fingerprint, context_taken: row.context_taken,
    },
    data: {
      catalog_provider: row.catalog_provider, catalog_status: row.catalog_status, catalog_snapshot_id: row.catalog_snapshot_id,
      catalog_atomic: row.catalog_atomic, catalog_detail: row.catalog_detail,
    },
  };
}

export async function inspectInvocation(connection: DuckDBConnection, id: string): Promise<InspectReport> {
  const invocation = await readInvocation(connection, id);
  const previous = await previousInvocation(connection, id);
  return {
    invocation,
    triplet: tripletOf(invocation),
    previous,
    changes: previous ? await diffInvocations(connection, previous, id, invocation) : null,
  };
}

export async function diffInvocations(connection: DuckDBConnection, a: string, b: string, bRow?: Row): Promise<Changes> {
  const [from, to] = await Promise.all([readInvocation(connection, a), bRow ?? readInvocation(connection, b)]);
  const nodes = await compareNodes(connection, a, b);
  const macros = await compareMacros(connection, a, b);
  return {
    from: a,
    to: b,
    same_code: from.code_fingerprint && to.code_fingerprint ? from.code_fingerprint === to.code_fingerprint : null,
    git: { from: from.git_sha, to: to.git_sha, range: from.git_sha && to.git_sha && from.git_sha !== to.git_sha ? `${from.git_sha}..${to.git_sha}` : null },
    catalog: {
      from: from.catalog_snapshot_id,
      to: to.catalog_snapshot_id,
      changed: from.catalog_snapshot_id && to.catalog_snapshot_id ? from.catalog_snapshot_id !== to.catalog_snapshot_id : null,
    },
    nodes,
    node_counts: countBy(nodes, 'change'),
    macros,
    macro_counts: countBy(macros, 'change'),
    statuses: await compareStatuses(connection, a, b),
    runtimes: await compareRuntimes(connection, a, b),
  };
}

function countBy(rows: Row[], key: string): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const row of rows) counts[String(row[key])] = (counts[String(row[key])] ?? 0) + 1;
  return counts;
}
