import { openArtifact, type ArtifactHeader, type ReadOptions } from './detect.js';
import { asArray, asObject, bool, int, json, num, str, text, timestamp, type JsonObject } from './fields.js';
import { metadataFacts, timingFacts } from './invocation.js';
import type { InvocationFacts, RunResultRow } from './rows.js';
import { maskedText, redactCommandLine, redactNested } from '../vocab/index.js';
import { scanResults } from './results-file.js';
import { BytesMemo } from '../json/bytes-memo.js';
import { commandName } from './command-name.js';
import { countStatuses, normaliseLegacyResult, normaliseStatus } from './status.js';

/**
 * run_results.json → one row per result, plus the invocation's command, selection and timing.
 * v1–v6 give each result flat; before 0.19 the result nested its whole node and `status` held
 * the adapter's message (see status.ts).
 */
export interface RunResultsExtract {
  header: ArtifactHeader;
  invocation: InvocationFacts;
  results: RunResultRow[];
}

export function extractRunResults(buf: Buffer, options: ReadOptions = {}): RunResultsExtract {
  const { header, invocationId } = openArtifact(buf, 'run_results', options);
  const held = extracted.get(buf);
  if (held && held.invocation.invocation_id === invocationId) return held;
  const { results, top } = scanResults(buf, 'run_results', (result) => resultRow(result, invocationId, header.schemaVersion));
  const facts = timingFacts(metadataFacts(header, invocationId), top.elapsed_time);
  const extract = { header, invocation: { ...facts, ...argsFacts(top.args), ...countFacts(results) }, results };
  extracted.set(buf, extract);
  return extract;
}

/**
 * The reading of large run results, kept with their bytes (json/bytes-memo.ts): capture
 * summarises them (summarize-run-results.ts), then ingest reads them. The header is read and checked again
 * by each call, so a caller that refuses a newer schema still does. Readers treat the rows as
 * read-only.
 */
const extracted = new BytesMemo<RunResultsExtract>();

/** A result that names no node cannot be joined to anything, so it is left out. */
function resultRow(result: JsonObject, invocationId: string, schemaVersion: number | null): RunResultRow | null {
  const node = asObject(result.node);
  const uniqueId = str(result.unique_id) ?? str(node?.unique_id);
  if (uniqueId === null) return null;
  const outcome = outcomeOf(result, node, schemaVersion);
  const adapterResponse = asObject(result.adapter_response);
  const timing = timingOf(result.timing);
  return {
    invocation_id: invocationId,
    unique_id: uniqueId,
    status: outcome.status,
    message: maskedText(outcome.message),
    failures: outcome.failures,
    execution_time: num(result.execution_time),
    thread_id: str(result.thread_id),
    compile_started_at: timing.compile?.started ?? null,
    compile_completed_at: timing.compile?.completed ?? null,
    execute_started_at: timing.execute?.started ?? null,
    execute_completed_at: timing.execute?.completed ?? null,
    rows_affected: int(adapterResponse?.rows_affected),
    adapter_response: json(result.adapter_response),
    batch_results: json(result.batch_results),
  };
}

function outcomeOf(result: JsonObject, node: JsonObject | null, schemaVersion: number | null) {
  if (schemaVersion === null) {
    const isTest = node?.resource_type === 'test' || str(node?.unique_id)?.startsWith('test.') === true;
    return normaliseLegacyResult({ ...pickLegacy(result), isTest });
  }
  // v1 put a test's failure count in `message`; v2 gave it `failures`.
  const message = result.message;
  const failures = int(result.failures) ?? (typeof message === 'number' ? int(message) : null);
  return { status: normaliseStatus(result.status), message: text(message), failures };
}

function pickLegacy(result: JsonObject) {
  return { status: result.status, error: result.error, fail: result.fail, warn: result.warn, skip: result.skip };
}

interface Span {
  started: string | null;
  completed: string | null;
}

function timingOf(value: unknown): { compile?: Span; execute?: Span } {
  const spans: { compile?: Span; execute?: Span } = {};
  for (const entry of asArray(value)) {
    const step = asObject(entry);
    const name = str(step?.name);
    if (name !== 'compile' && name !== 'execute') continue;
    spans[name] = { started: timestamp(step?.started_at), completed: timestamp(step?.completed_at) };
  }
  return spans;
}

/** The command and selection, from `args` (dbt 0.19+). Older names fall back: models → select, selector_name → selector. */
function argsFacts(value: unknown): Partial<InvocationFacts> {
  const args = asObject(value);
  if (!args) return {};
  return {
    command: commandName(args),
    selection: json(args.select ?? args.models),
    exclusion: json(args.exclude),
    selector: str(args.selector) ?? str(args.selector_name),
    resource_types: json(args.resource_types ?? args.resource_type),
    full_refresh: bool(args.full_refresh),
    target: str(args.target),
    vars: json(redactNested(args.vars)),
    invocation_command: commandLine(str(args.invocation_command)),
    args: json(redactNested({ ...args, invocation_command: commandLine(str(args.invocation_command)) })),
  };
}

function countFacts(results: readonly RunResultRow[]): Partial<InvocationFacts> {
  return { result_count: results.length, status_counts: countStatuses(results) };
}

function commandLine(text: string | null): string | null {
  return text === null ? null : redactCommandLine(text);
}
