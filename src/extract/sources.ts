import { openArtifact, type ArtifactHeader, type ReadOptions } from './detect.js';
import { asObject, int, json, num, str, timestamp, type JsonObject } from './fields.js';
import { metadataFacts, timingFacts } from './invocation.js';
import { scanResults } from './results-file.js';
import type { InvocationFacts, SourceFreshnessRow } from './rows.js';
import { countStatuses, normaliseStatus } from './status.js';
import { maskedText } from '../vocab/index.js';

/**
 * sources.json (`dbt source freshness`) → one row per source checked. v1–v3 share a flat shape;
 * before 0.19 each result nested its source node, called the age `age`, and a failed query was
 * status "error" with the database error beside it, which 0.19 calls "runtime error".
 */
export interface SourcesExtract {
  header: ArtifactHeader;
  invocation: InvocationFacts;
  freshness: SourceFreshnessRow[];
}

export function extractSources(buf: Buffer, options: ReadOptions = {}): SourcesExtract {
  return extractFreshnessResults(buf, 'sources', options);
}

/**
 * freshness.json (dbt v2 `dbt freshness`, schema freshness/v0) has the results of sources.json v3
 * plus `resource_type`: models with a freshness config are checked too. Same rows, the unique_id
 * telling a model from a source.
 */
export function extractFreshness(buf: Buffer, options: ReadOptions = {}): SourcesExtract {
  return extractFreshnessResults(buf, 'freshness', options);
}

function extractFreshnessResults(buf: Buffer, type: 'sources' | 'freshness', options: ReadOptions): SourcesExtract {
  const { header, invocationId } = openArtifact(buf, type, options);
  const legacy = header.schemaVersion === null;
  const { results, top } = scanResults(buf, type, (result) => freshnessRow(result, invocationId, legacy));
  const facts = timingFacts(metadataFacts(header, invocationId), top.elapsed_time);
  // Only a freshness command writes these files, and they do not record its args.
  const command = type === 'sources' ? 'source freshness' : 'freshness';
  return { header, invocation: { ...facts, command, result_count: results.length, status_counts: countStatuses(results) }, freshness: results };
}

function freshnessRow(result: JsonObject, invocationId: string, legacy: boolean): SourceFreshnessRow | null {
  const node = asObject(result.node);
  const uniqueId = str(result.unique_id) ?? str(node?.unique_id);
  if (uniqueId === null) return null;
  const criteria = asObject(result.criteria) ?? (legacy ? asObject(node?.freshness) : null);
  // dbt's message may quote a connection string or a token: masked by shape (vocab/secret-shapes.ts).
  const message = maskedText(str(result.error) ?? str(result.message));
  const warnAfter = asObject(criteria?.warn_after);
  const errorAfter = asObject(criteria?.error_after);
  return {
    invocation_id: invocationId,
    unique_id: uniqueId,
    status: legacy && str(result.error) !== null ? 'runtime error' : normaliseStatus(result.status),
    message,
    max_loaded_at: timestamp(result.max_loaded_at),
    snapshotted_at: timestamp(result.snapshotted_at),
    age_s: num(result.max_loaded_at_time_ago_in_s) ?? num(result.age),
    warn_after_count: int(warnAfter?.count),
    warn_after_period: str(warnAfter?.period),
    error_after_count: int(errorAfter?.count),
    error_after_period: str(errorAfter?.period),
    criteria: json(criteria),
    execution_time: num(result.execution_time),
    thread_id: str(result.thread_id),
    adapter_response: json(result.adapter_response),
  };
}
