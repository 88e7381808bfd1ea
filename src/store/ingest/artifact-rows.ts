import type { DuckDBConnection } from '@duckdb/node-api';
import type { ArtifactRecord, BlobsAhead } from '../../archive/index.js';
import {
  extractCatalog,
  extractFreshness,
  extractManifest,
  extractRunResults,
  extractSemanticManifest,
  extractSources,
  fingerprintProject,
  type ArtifactInvocationFacts,
  type NodeDependsOnRow,
  type NodeEntryRow,
} from '../../extract/index.js';
import { RowAppender } from './append.js';
import type { NodeMember } from './node-blocks.js';
import { writeNodeBlocks } from './node-block-writer.js';
import { nothingCarried, type CarriedManifest, type PriorReading } from './prior-manifest.js';
import type { VersionWriter } from './version-writer.js';

/** The per-invocation tables an artifact's rows land in; versions go through staging tables. */
export const PER_INVOCATION_TABLES = [
  'invocation_node_block',
  'macro_invocation',
  'run_result_pending',
  'source_freshness',
  'catalog_table',
  'catalog_column',
  'semantic_definition',
] as const;

type Appenders = Record<(typeof PER_INVOCATION_TABLES)[number], RowAppender>;

export async function openAppenders(connection: DuckDBConnection): Promise<Appenders> {
  const entries = await Promise.all(PER_INVOCATION_TABLES.map(async (table) => [table, await RowAppender.open(connection, table)] as const));
  return Object.fromEntries(entries) as Appenders;
}

export function closeAppenders(appenders: Appenders): void {
  for (const appender of Object.values(appenders)) appender.close();
}

/**
 * Reads one archived artifact and appends its rows; returns what it says of the invocation.
 * `prior`: a manifest stored before, whose fingerprints a manifest carries over where exact, and
 * the entries of it that a manifest takes rows from instead of parsing them (node_entry).
 */
export async function appendArtifactRows(
  connection: DuckDBConnection,
  blobs: BlobsAhead,
  record: ArtifactRecord,
  out: Appenders,
  versions: VersionWriter,
  prior?: PriorReading,
  carried?: CarriedManifest,
): Promise<ArtifactInvocationFacts> {
  const bytes = await blobs.recall(record.sha256);
  const options = { invocationId: record.invocation_id };
  switch (record.artifact) {
    case 'manifest': {
      const manifest = extractManifest(bytes, { ...options, prior: prior?.manifest, knownEntries: prior?.entries });
      const fingerprints: [string, string][] = [];
      const newEntries: NodeEntryRow[] = [];
      const held = carried ? nothingCarried() : null;
      const members: NodeMember[] = [];
      for (const entry of manifest.entries()) {
        if (entry.kind === 'macro') {
          await versions.addMacro(entry.invocation.macro_version_id, () => entry.version);
          out.macro_invocation.append(entry.invocation);
          held?.macros.set(entry.invocation.unique_id, entry.invocation.macro_version_id);
        } else {
          const { invocation } = entry;
          await versions.addNode(
            invocation.node_version_id,
            () => entry.version,
            () => nodeEdges(entry.dependsOn),
          );
          const code = invocation.compiled_code_id;
          if (code !== null) await versions.addCompiledCode(code, () => entry.compiledCode!);
          if (entry.entry && !entry.known) newEntries.push(entry.entry);
          if (entry.entry) held?.entries.set(entry.entry.entry_digest, entry.entry);
          const macros = entry.dependsOn.filter((d) => d.kind === 'macro').map((d) => d.depends_on_id);
          members.push({ ...invocation, macros });
          if (invocation.fingerprint) {
            fingerprints.push([invocation.unique_id, invocation.fingerprint]);
            held?.nodes.set(invocation.unique_id, { nodeVersionId: invocation.node_version_id, fingerprint: invocation.fingerprint, macros });
          }
        }
      }
      await versions.rememberEntries(newEntries);
      if (carried && held) Object.assign(carried, held, { invocationId: record.invocation_id });
      await writeNodeBlocks(connection, record.invocation_id, members, out.invocation_node_block);
      return { from: 'manifest', facts: { ...manifest.invocation, code_fingerprint: fingerprints.length ? fingerprintProject(fingerprints) : null } };
    }
    case 'run_results': {
      const runResults = extractRunResults(bytes, options);
      for (const row of runResults.results) out.run_result_pending.append(row);
      return { from: 'run_results', facts: runResults.invocation };
    }
    case 'sources': {
      const sources = extractSources(bytes, options);
      for (const row of sources.freshness) out.source_freshness.append(row);
      return { from: 'sources', facts: sources.invocation };
    }
    case 'freshness': {
      const freshness = extractFreshness(bytes, options);
      for (const row of freshness.freshness) out.source_freshness.append(row);
      return { from: 'freshness', facts: freshness.invocation };
    }
    case 'catalog': {
      const catalog = extractCatalog(bytes, options);
      for (const entry of catalog.entries()) {
        out.catalog_table.append(entry.table);
        for (const column of entry.columns) out.catalog_column.append(column);
      }
      return { from: 'catalog', facts: catalog.invocation };
    }
    case 'semantic_manifest': {
      const semantic = extractSemanticManifest(bytes, options);
      for (const row of semantic.definitions) out.semantic_definition.append(row);
      return { from: 'semantic_manifest', facts: semantic.invocation };
    }
  }
}

/** A node version's edges to nodes: its depends_on.nodes, which the version hashes. */
function nodeEdges(dependsOn: readonly NodeDependsOnRow[]): string[] {
  return dependsOn.filter((d) => d.kind === 'node').map((d) => d.depends_on_id);
}
