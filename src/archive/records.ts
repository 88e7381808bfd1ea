import { AtticError, isAtticError } from '../errors.js';
import {
  asRunResultsSummary,
  compareInstants,
  compareText,
  isArtifactType,
  isCapturePhase,
  type ArtifactType,
  type CapturePhase,
  type ObjectId,
  type RunResultsSummary,
} from '../vocab/index.js';
import type { Backend } from './backend.js';
import { artifactRecordKey, CAPTURE_RECORDS_PREFIX, captureRecordKey, INVOCATION_RECORDS_PREFIX, invocationIdProblem } from './layout.js';
import { forEachLimited } from '../vocab/parallel.js';
import { isOutputKind, type OutputKind } from './output-kind.js';

/**
 * Records are small immutable JSON documents that give meaning to objects.
 * - An artifact record says: this invocation's artifact of this type is blob `sha256`. dbt can
 *   rewrite an artifact within one invocation (the manifest at parse time, then again at the end
 *   of a run), so the key includes the hash and every version is kept; the newest is authoritative.
 * - A capture record says what one `capture` (or `run`) saw and did.
 */
export interface ArtifactRecord {
  kind: 'artifact';
  format: 1;
  invocation_id: string;
  /** 'content': before dbt 0.19 there is no invocation id; 'manifest': semantic_manifest.json has none and takes its sibling manifest's. */
  invocation_id_source: 'metadata' | 'content' | 'manifest';
  artifact: ArtifactType;
  sha256: ObjectId;
  size: number;
  dbt_schema_version: string | null;
  dbt_version: string | null;
  generated_at: string | null;
  captured_at: string;
  capture_id: string;
  phase: CapturePhase;
  /**
   * run_results only: its summary, derived at capture (vocab/run-results-summary.ts). Absent in records
   * of older dbtattic versions and when the results could not be summarised: readers then
   * summarise the bytes themselves.
   */
  summary?: RunResultsSummary;
}

/**
 * repaired: the archive recorded the artifact, but its bytes or record were damaged and were
 * written again. forgotten: its invocation was forgotten (`forget`), so it is not filed again.
 */
export type CaptureStatus = 'captured' | 'unchanged' | 'repaired' | 'absent' | 'error' | 'forgotten';

export interface CapturedArtifact {
  artifact: ArtifactType;
  status: CaptureStatus;
  path: string;
  invocation_id: string | null;
  sha256: ObjectId | null;
  size: number | null;
  stored_bytes: number;
  error?: string;
}

/** What `dbtattic run` adds: the command and how it ended. */
export interface RunInfo {
  argv: string[];
  started_at: string;
  ended_at: string;
  exit_code: number;
  signal: string | null;
}

export interface CaptureRecord {
  kind: 'capture';
  format: 1;
  capture_id: string;
  phase: CapturePhase;
  captured_at: string;
  tool_version: string;
  branch: string | null;
  /** Free-form context of the moment (git, catalog snapshot), filled by capture. */
  context: Record<string, unknown>;
  run: RunInfo | null;
  artifacts: CapturedArtifact[];
  /** What dbt wrote besides artifacts (outputs.ts); absent in captures before outputs existed. */
  outputs?: CapturedOutput[];
}

/** One output a capture saw: an invocation's SQL tree or log slice. */
export interface CapturedOutput {
  output: 'sql' | 'log';
  status: 'captured' | 'unchanged' | 'error' | 'forgotten';
  invocation_id: string | null;
  sha256: ObjectId | null;
  size: number | null;
  entries: number;
  stored_bytes: number;
  error?: string;
}

/**
 * Orders two records of one invocation's artifact: dbt's later write wins (it rewrites the
 * manifest at the end of a run), by instant, not text (dbt spells one instant several ways);
 * a record without a readable time loses to one with it. Ties go to the later capture (by
 * instant, then capture id), then to the hash, which differs between any two records of one
 * artifact, so the order is total and every reader (state, the store) picks the same record.
 */
export function compareArtifactRecords(a: ArtifactRecord, b: ArtifactRecord): number {
  return (
    compareInstants(a.generated_at, b.generated_at) ||
    compareInstants(a.captured_at, b.captured_at) ||
    compareText(a.capture_id, b.capture_id) ||
    compareText(a.sha256, b.sha256)
  );
}

export async function putArtifactRecord(backend: Backend, record: ArtifactRecord): Promise<boolean> {
  // Capture refuses such ids first; this keeps any other writer from filing one.
  const problem = invocationIdProblem(record.invocation_id);
  if (problem) throw new AtticError('artifact-unreadable', `The ${record.artifact} cannot be filed: ${problem}.`);
  const key = artifactRecordKey(record.invocation_id, record.artifact, record.sha256);
  return backend.putIfAbsent(key, Buffer.from(`${JSON.stringify(record, null, 2)}\n`));
}

/** Writes the record again when the one under its key cannot be read; true when it did. */
export async function repairArtifactRecord(backend: Backend, record: ArtifactRecord): Promise<boolean> {
  const key = artifactRecordKey(record.invocation_id, record.artifact, record.sha256);
  const stored = await backend.get(key);
  try {
    if (stored) parseArtifactRecord(key, stored);
    return false;
  } catch (error) {
    if (!isAtticError(error) || error.code !== 'archive-damaged') throw error;
    await backend.delete(key);
    return backend.putIfAbsent(key, Buffer.from(`${JSON.stringify(record, null, 2)}\n`));
  }
}

export async function hasArtifactRecord(backend: Backend, invocationId: string, artifact: ArtifactType, sha: ObjectId): Promise<boolean> {
  return backend.has(artifactRecordKey(invocationId, artifact, sha));
}

export async function putCaptureRecord(backend: Backend, record: CaptureRecord): Promise<boolean> {
  return backend.putIfAbsent(captureRecordKey(record.capture_id), Buffer.from(`${JSON.stringify(record, null, 2)}\n`));
}

/**
 * A record that exists but cannot be read. Readers leave it out and go on (one damaged record
 * must not take the history down) and hand it to whoever wants to report it; `verify` names it.
 */
export interface DamagedRecord {
  key: string;
  /** The invocation and artifact (or output kind) its key names, when it is an artifact or output record. */
  invocation_id: string | null;
  artifact: ArtifactType | OutputKind | null;
  object_id: string | null;
  message: string;
}

export type OnDamagedRecord = (damage: DamagedRecord) => void;

/** Keys only: cheap, so a reader can find what it has not seen and read just that. */
export async function listArtifactRecordKeys(backend: Backend): Promise<string[]> {
  return (await backend.list(INVOCATION_RECORDS_PREFIX)).map((k) => k.key).filter((k) => k.endsWith('.json'));
}

/** Every invocation id the archive files artifacts under (a listing, no record read). */
export async function listInvocationIds(backend: Backend): Promise<string[]> {
  const ids = new Set<string>();
  for (const key of await listArtifactRecordKeys(backend)) {
    const segment = key.slice(INVOCATION_RECORDS_PREFIX.length).split('/')[0];
    if (segment) ids.add(decodeURIComponent(segment));
  }
  return [...ids];
}

export async function listCaptureRecordKeys(backend: Backend): Promise<string[]> {
  return (await backend.list(CAPTURE_RECORDS_PREFIX)).map((k) => k.key).filter((k) => k.endsWith('.json'));
}

export async function readArtifactRecords(backend: Backend, keys: readonly string[], onDamaged?: OnDamagedRecord): Promise<ArtifactRecord[]> {
  return readKeys(backend, keys, parseArtifactRecord, onDamaged);
}

export async function readCaptureRecords(backend: Backend, keys: readonly string[], onDamaged?: OnDamagedRecord): Promise<CaptureRecord[]> {
  return readKeys(backend, keys, parseCaptureRecord, onDamaged);
}

export async function listArtifactRecords(backend: Backend, onDamaged?: OnDamagedRecord): Promise<ArtifactRecord[]> {
  return readRecords(backend, INVOCATION_RECORDS_PREFIX, parseArtifactRecord, onDamaged);
}

export async function listCaptureRecords(backend: Backend, onDamaged?: OnDamagedRecord): Promise<CaptureRecord[]> {
  const records = await readRecords(backend, CAPTURE_RECORDS_PREFIX, parseCaptureRecord, onDamaged);
  return records.sort((a, b) => compareText(a.capture_id, b.capture_id));
}

/** Artifact records of one invocation, newest capture first. */
export async function listInvocationRecords(backend: Backend, invocationId: string, onDamaged?: OnDamagedRecord): Promise<ArtifactRecord[]> {
  const prefix = artifactRecordKey(invocationId, 'manifest', '0'.repeat(64)).replace(/manifest-0+\.json$/, '');
  const records = await readRecords(backend, prefix, parseArtifactRecord, onDamaged);
  return records.sort((a, b) => compareInstants(b.captured_at, a.captured_at) || compareText(b.capture_id, a.capture_id));
}

async function readRecords<T>(backend: Backend, prefix: string, parse: (key: string, bytes: Buffer) => T, onDamaged?: OnDamagedRecord): Promise<T[]> {
  const keys = (await backend.list(prefix)).map((k) => k.key).filter((k) => k.endsWith('.json'));
  return readKeys(backend, keys, parse, onDamaged);
}

/** Reads and parses records at `keys`; a damaged one is left out and handed to `onDamaged`. */
export async function readKeys<T>(
  backend: Backend,
  keys: readonly string[],
  parse: (key: string, bytes: Buffer) => T,
  onDamaged?: OnDamagedRecord,
): Promise<T[]> {
  const out: T[] = [];
  await forEachLimited(keys, 16, async (key) => {
    const bytes = await backend.get(key);
    if (!bytes) return;
    try {
      out.push(parse(key, bytes));
    } catch (error) {
      if (!isAtticError(error) || error.code !== 'archive-damaged') throw error;
      onDamaged?.({ key, ...namedByKey(key), message: error.message });
    }
  });
  return out;
}

/**
 * What an artifact or output record's key says about it, which holds even when its content is
 * damaged. An output record names its output kind (sql, log) where an artifact record names its type.
 */
function namedByKey(key: string): Pick<DamagedRecord, 'invocation_id' | 'artifact' | 'object_id'> {
  const match = /^records\/(invocations|outputs)\/([^/]+)\/([a-z_]+)-([0-9a-f]{64})\.json$/.exec(key);
  const named = match && (match[1] === 'invocations' ? isArtifactType(match[3]!) : isOutputKind(match[3]!));
  if (!match || !named) return { invocation_id: null, artifact: null, object_id: null };
  return { invocation_id: safeDecode(match[2]!), artifact: match[3] as ArtifactType | OutputKind, object_id: match[4]! };
}

function safeDecode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

export function parseArtifactRecord(key: string, bytes: Buffer): ArtifactRecord {
  const r = new RecordReader(key, bytes);
  if (r.raw.kind !== 'artifact') throw unreadable(key, 'it is not an artifact record');
  const artifact = r.string('artifact');
  if (!isArtifactType(artifact)) throw unreadable(key, `unknown artifact type '${artifact}'`);
  // An ill-shaped or foreign summary is ignored, not damage: the results' bytes still tell.
  const summary = artifact === 'run_results' ? asRunResultsSummary(r.raw.summary) : null;
  return {
    kind: 'artifact',
    format: 1,
    invocation_id: r.string('invocation_id'),
    invocation_id_source: r.idSource(),
    artifact,
    sha256: r.string('sha256'),
    size: r.number('size'),
    dbt_schema_version: r.stringOrNull('dbt_schema_version'),
    dbt_version: r.stringOrNull('dbt_version'),
    generated_at: r.stringOrNull('generated_at'),
    captured_at: r.string('captured_at'),
    capture_id: r.string('capture_id'),
    phase: r.phase(),
    ...(summary ? { summary } : {}),
  };
}

export function parseCaptureRecord(key: string, bytes: Buffer): CaptureRecord {
  const r = new RecordReader(key, bytes);
  if (r.raw.kind !== 'capture' || !Array.isArray(r.raw.artifacts)) throw unreadable(key, 'it is not a capture record');
  if (!r.raw.artifacts.every(isCapturedArtifact)) throw unreadable(key, 'an artifact entry is not one capture writes');
  return {
    kind: 'capture',
    format: 1,
    capture_id: r.string('capture_id'),
    phase: r.phase(),
    captured_at: r.string('captured_at'),
    tool_version: r.string('tool_version'),
    branch: r.stringOrNull('branch'),
    context: r.object('context'),
    run: r.raw.run ? (r.raw.run as RunInfo) : null,
    artifacts: r.raw.artifacts as CapturedArtifact[],
    ...(Array.isArray(r.raw.outputs) ? { outputs: r.raw.outputs as CapturedOutput[] } : {}),
  };
}

function isCapturedArtifact(value: unknown): value is CapturedArtifact {
  if (!value || typeof value !== 'object') return false;
  const entry = value as Record<string, unknown>;
  const optionalString = (field: string): boolean => entry[field] === null || entry[field] === undefined || typeof entry[field] === 'string';
  return (
    typeof entry.artifact === 'string' &&
    isArtifactType(entry.artifact) &&
    typeof entry.status === 'string' &&
    optionalString('invocation_id') &&
    optionalString('sha256')
  );
}

/** Reads fields of a record we wrote, failing with the key named when one is off. */
class RecordReader {
  readonly raw: Record<string, unknown>;

  constructor(
    private readonly key: string,
    bytes: Buffer,
  ) {
    this.raw = parseJsonRecord(key, bytes);
  }

  string(field: string): string {
    const value = this.raw[field];
    if (typeof value !== 'string') throw unreadable(this.key, `'${field}' is not a string`);
    return value;
  }

  stringOrNull(field: string): string | null {
    const value = this.raw[field];
    return typeof value === 'string' ? value : null;
  }

  number(field: string): number {
    const value = this.raw[field];
    if (typeof value !== 'number') throw unreadable(this.key, `'${field}' is not a number`);
    return value;
  }

  object(field: string): Record<string, unknown> {
    const value = this.raw[field];
    return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
  }

  idSource(): ArtifactRecord['invocation_id_source'] {
    const value = this.string('invocation_id_source');
    if (value !== 'metadata' && value !== 'content' && value !== 'manifest') throw unreadable(this.key, `unknown invocation_id_source '${value}'`);
    return value;
  }

  phase(): CapturePhase {
    const value = this.string('phase');
    if (!isCapturePhase(value)) throw unreadable(this.key, `unknown phase '${value}'`);
    return value;
  }
}

function parseJsonRecord(key: string, bytes: Buffer): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(bytes.toString('utf8'));
    if (value && typeof value === 'object' && !Array.isArray(value)) return value as Record<string, unknown>;
  } catch {
    // reported below
  }
  throw unreadable(key, 'it is not valid JSON');
}

function unreadable(key: string, why: string): AtticError {
  return new AtticError('archive-damaged', `Record ${key} is unreadable: ${why}. Run 'dbtattic verify'.`, { key });
}
