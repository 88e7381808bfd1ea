import { createHash } from 'node:crypto';
import { isAtticError } from '../errors.js';
import type { Backend } from './backend.js';
import { branchesNamingGoneRuns, strayBranchKeys, unreadableBranchRefs } from './branches.js';
import { ARCHIVE_FORMAT, archiveFormatOf } from './open.js';
import {
  artifactRecordKey,
  CAPTURE_RECORDS_PREFIX,
  CHUNKS_PREFIX,
  FILES_PREFIX,
  FORMAT_KEY,
  idOfObjectKey,
  INVOCATION_RECORDS_PREFIX,
  invocationOfRecordKey,
  JOURNAL_PREFIX,
  journalKey,
  OUTPUT_RECORDS_PREFIX,
  outputRecordKey,
} from './layout.js';
import { readBlob, readChunk, readFileIndex } from './objects.js';
import { parseOutputRecord } from './outputs.js';
import { parseSqlTree } from './sql-tree.js';
import { forEachLimited } from '../vocab/parallel.js';
import type { RunResultsSummary } from '../vocab/run-results-summary.js';
import { parseArtifactRecord, parseCaptureRecord, type ArtifactRecord } from './records.js';
import { parsePlanRecord, PLAN_RECORDS_PREFIX } from './plans.js';
import { FORGOTTEN_PREFIX, forgetRecordKey, parseForgetRecord } from './forgotten.js';
import { parseJournalEntry } from './journal.js';

/**
 * Checks every promise the archive format makes, as `restic check --read-data` does:
 * every chunk decompresses to bytes with its hash; every file index names chunks that exist and
 * whose concatenation has the file's hash and size; every record parses, sits under the key its
 * content implies, and points at a file that exists; every capture record's artifacts have records;
 * every plan record sits under its own key, beside an invocation the archive has; every output
 * record's blob exists, and a SQL tree's files and bases too; forget records, journal entries
 * and branch refs parse.
 */
export type ProblemKind = 'format' | 'corrupt-object' | 'bad-record' | 'dangling-record' | 'bad-ref';

export interface Problem {
  kind: ProblemKind;
  key: string;
  message: string;
}

export interface VerifyReport {
  ok: boolean;
  checked: { chunks: number; files: number; artifactRecords: number; captureRecords: number };
  problems: Problem[];
  /** Objects missing or damaged, by id: what an intact copy of an artifact could restore. */
  damaged: { chunks: string[]; files: string[] };
}

/**
 * How run results are summarised (extract's rule, which the archive layer cannot import): given,
 * verify checks each run_results record's summary against the bytes it points at.
 */
export type Summarize = (bytes: Buffer, invocationId: string) => RunResultsSummary;

export async function verifyArchive(backend: Backend, onProgress?: (done: number, total: number) => void, summarize?: Summarize): Promise<VerifyReport> {
  const problems: Problem[] = [];
  const report = (kind: ProblemKind, key: string, message: string): void => {
    problems.push({ kind, key, message });
  };
  await checkFormat(backend, report);
  const chunks = await backend.list(CHUNKS_PREFIX);
  const files = await backend.list(FILES_PREFIX);
  const total = chunks.length + files.length;
  let done = 0;
  const tick = (): void => onProgress?.(++done, total);
  const damaged = { chunks: new Set<string>(), files: new Set<string>() };
  const goodChunks = await checkChunks(
    backend,
    chunks.map((c) => c.key),
    report,
    tick,
  );
  const goodFiles = await checkFiles(
    backend,
    files.map((f) => f.key),
    goodChunks,
    report,
    tick,
    damaged.chunks,
  );
  const artifactKeys = await checkArtifactRecords(backend, goodFiles, report, damaged.files, summarize);
  const forgets = await checkForgetAndJournal(backend, report);
  const captureCount = await checkCaptureRecords(backend, artifactKeys, forgets, report);
  await checkPlanRecords(backend, artifactKeys, report);
  await checkOutputRecords(backend, goodFiles, report, damaged.files);
  for (const ref of await unreadableBranchRefs(backend)) {
    report(
      'bad-ref',
      ref.key,
      `branch '${ref.name}' is unreadable, and every capture on it stops; 'dbtattic verify --repair' writes it again from the capture records (a base from branch create is lost), or 'dbtattic branch delete ${ref.name}' removes it`,
    );
  }
  const present = new Set([...artifactKeys].map((key) => invocationOfRecordKey(INVOCATION_RECORDS_PREFIX, key)));
  for (const gone of await branchesNamingGoneRuns(backend, present)) {
    const why = forgets.forgotten.has(gone.invocationId) ? 'was forgotten' : 'is not in the archive';
    report(
      'bad-ref',
      gone.key,
      `branch '${gone.name}' ${gone.role === 'base' ? 'starts from' : 'has as its head'} invocation ${gone.invocationId}, which ${why}: 'state --branch ${gone.name}' and 'inspect @${gone.name}' find nothing there; 'dbtattic branch delete ${gone.name}' removes the branch`,
    );
  }
  for (const key of await strayBranchKeys(backend)) {
    report(
      'bad-ref',
      key,
      "names no branch dbtattic writes (a name git refuses, or spelt otherwise): every reader skips it; 'dbtattic verify --repair' removes it",
    );
  }
  for (const { key } of chunks) {
    const id = idOfObjectKey(key, CHUNKS_PREFIX);
    if (id && !goodChunks.has(id)) damaged.chunks.add(id);
  }
  for (const { key } of files) {
    const id = idOfObjectKey(key, FILES_PREFIX);
    if (id && !goodFiles.has(id)) damaged.files.add(id);
  }
  return {
    ok: problems.length === 0,
    checked: { chunks: chunks.length, files: files.length, artifactRecords: artifactKeys.size, captureRecords: captureCount },
    problems,
    damaged: { chunks: [...damaged.chunks].sort(), files: [...damaged.files].sort() },
  };
}

type Report = (kind: ProblemKind, key: string, message: string) => void;

async function checkFormat(backend: Backend, report: Report): Promise<void> {
  const format = (await backend.get(FORMAT_KEY))?.toString('utf8').trim();
  if (archiveFormatOf(format) === undefined)
    report(
      'format',
      FORMAT_KEY,
      `expected '${ARCHIVE_FORMAT}' or an earlier format this dbtattic reads, found ${format === undefined ? 'nothing' : `'${format}'`}`,
    );
}

async function checkChunks(backend: Backend, keys: string[], report: Report, tick: () => void): Promise<Set<string>> {
  const good = new Set<string>();
  await forEachLimited(keys, 8, async (key) => {
    const id = idOfObjectKey(key, CHUNKS_PREFIX);
    if (!id) report('corrupt-object', key, 'a file in chunks/ that is not named by a hash');
    else if (await ok(() => readChunk(backend, id), key, 'corrupt-object', report)) good.add(id);
    tick();
  });
  return good;
}

async function checkFiles(
  backend: Backend,
  keys: string[],
  goodChunks: Set<string>,
  report: Report,
  tick: () => void,
  badChunks: Set<string>,
): Promise<Set<string>> {
  const good = new Set<string>();
  await forEachLimited(keys, 4, async (key) => {
    const id = idOfObjectKey(key, FILES_PREFIX);
    if (!id) report('corrupt-object', key, 'a file in files/ that is not named by a hash');
    else if (await ok(() => checkFile(backend, id, goodChunks, badChunks), key, 'corrupt-object', report)) good.add(id);
    tick();
  });
  return good;
}

/** Hashes the reassembled file chunk by chunk, so memory stays at one chunk. */
async function checkFile(backend: Backend, id: string, goodChunks: Set<string>, badChunks: Set<string>): Promise<void> {
  const index = await readFileIndex(backend, id);
  const missing = index.chunks.map(([chunkId]) => chunkId).filter((chunkId) => !goodChunks.has(chunkId));
  for (const chunkId of missing) badChunks.add(chunkId);
  const hash = createHash('sha256');
  let size = 0;
  for (const [chunkId, length] of index.chunks) {
    if (!goodChunks.has(chunkId)) throw new Error(`names chunk ${chunkId}, which is missing or damaged`);
    const bytes = await readChunk(backend, chunkId);
    if (bytes.length !== length) throw new Error(`chunk ${chunkId} has ${bytes.length} bytes, the index says ${length}`);
    hash.update(bytes);
    size += bytes.length;
  }
  if (size !== index.size) throw new Error(`reassembles to ${size} bytes, the index says ${index.size}`);
  if (hash.digest('hex') !== id) throw new Error('reassembles to bytes with a different hash');
}

async function checkArtifactRecords(
  backend: Backend,
  goodFiles: Set<string>,
  report: Report,
  badFiles: Set<string>,
  summarize?: Summarize,
): Promise<Set<string>> {
  const keys = new Set<string>();
  const entries = await backend.list(INVOCATION_RECORDS_PREFIX);
  await forEachLimited(entries, 16, async ({ key }) => {
    const bytes = await backend.get(key);
    await ok(
      async () => {
        const record = parseArtifactRecord(key, bytes ?? Buffer.alloc(0));
        if (artifactRecordKey(record.invocation_id, record.artifact, record.sha256) !== key) throw new Error('its content does not match its key');
        keys.add(key);
        if (!goodFiles.has(record.sha256)) {
          badFiles.add(record.sha256);
          report('dangling-record', key, `points at artifact ${record.sha256}, which is missing or damaged`);
        } else if (record.summary && summarize) {
          await checkSummary(backend, record, summarize);
        }
      },
      key,
      'bad-record',
      report,
    );
  });
  return keys;
}

/** `state` hands out runs by their summaries: one that says other than its results would mislead it. */
async function checkSummary(backend: Backend, record: ArtifactRecord, summarize: Summarize): Promise<void> {
  let derived: RunResultsSummary;
  try {
    derived = summarize(await readBlob(backend, record.sha256), record.invocation_id);
  } catch (error) {
    throw new Error(`has a summary of run results that cannot be summarised (${error instanceof Error ? error.message : String(error)})`);
  }
  if (canonicalJson(derived) !== canonicalJson(record.summary)) throw new Error('its summary does not match the run results it points at');
}

function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_, v: unknown) =>
    v && typeof v === 'object' && !Array.isArray(v) ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : 1))) : v,
  );
}

/** What the forget records say: the invocations forgotten, and the records that cannot be read. */
interface Forgets {
  forgotten: Set<string>;
  unreadable: string[];
}

/**
 * Forget records and journal entries parse and sit under their own keys. Neither has a second
 * copy: an unreadable forget record leaves its invocations unknown as forgotten (capture records
 * naming them then read as dangling), and an unreadable journal entry hides what it names from a
 * store kept up through the journal.
 */
async function checkForgetAndJournal(backend: Backend, report: Report): Promise<Forgets> {
  const forgets: Forgets = { forgotten: new Set(), unreadable: [] };
  for (const { key } of (await backend.list(FORGOTTEN_PREFIX)).filter((k) => k.key.endsWith('.json'))) {
    const record = parseForgetRecord(await backend.get(key));
    for (const id of record?.invocations ?? []) forgets.forgotten.add(id);
    if (record && forgetRecordKey(record.forget_id) === key) continue;
    forgets.unreadable.push(key);
    report(
      'bad-record',
      key,
      'is unreadable: the invocations it forgot are not known as forgotten, so capture records naming them read as dangling, and a store kept through the journal keeps their rows until rebuilt',
    );
  }
  for (const { key } of (await backend.list(JOURNAL_PREFIX)).filter((k) => k.key.endsWith('.json'))) {
    const bytes = await backend.get(key);
    const entry = bytes ? parseJournalEntry(bytes) : undefined;
    if (entry && journalKey(entry.journal_id) === key) continue;
    report(
      'bad-record',
      key,
      "is unreadable: a store kept up through the journal (a remote archive's cache) misses what it named until 'dbtattic rebuild'; the records themselves are checked above",
    );
  }
  return forgets;
}

/** A capture record may name artifacts of invocations `forget` removed since (forgotten.ts): that is history, not damage. */
async function checkCaptureRecords(backend: Backend, artifactKeys: Set<string>, { forgotten, unreadable }: Forgets, report: Report): Promise<number> {
  // With a forget record unreadable, a missing record may be one it forgot, not damage.
  const maybeForgotten = unreadable.length > 0 ? ` (or forgotten by the unreadable ${unreadable[0]})` : '';
  const entries = await backend.list(CAPTURE_RECORDS_PREFIX);
  await forEachLimited(entries, 16, async ({ key }) => {
    const bytes = await backend.get(key);
    await ok(
      async () => {
        const record = parseCaptureRecord(key, bytes ?? Buffer.alloc(0));
        for (const a of record.artifacts) {
          if (a.status !== 'captured' && a.status !== 'unchanged' && a.status !== 'repaired') continue;
          if (!a.invocation_id || !a.sha256) throw new Error(`its ${a.artifact} entry lacks an invocation or hash`);
          if (forgotten.has(a.invocation_id)) continue;
          const target = artifactRecordKey(a.invocation_id, a.artifact, a.sha256);
          if (!artifactKeys.has(target)) report('dangling-record', key, `names ${target}, which is missing or damaged${maybeForgotten}`);
        }
      },
      key,
      'bad-record',
      report,
    );
  });
  return entries.length;
}

/** A plan record parses, sits under its own key, and belongs to an invocation the archive has. */
async function checkPlanRecords(backend: Backend, artifactKeys: Set<string>, report: Report): Promise<void> {
  const invocations = new Set([...artifactKeys].map((k) => k.split('/')[2]));
  const entries = (await backend.list(PLAN_RECORDS_PREFIX)).filter((e) => e.key.endsWith('.json'));
  await forEachLimited(entries, 16, async ({ key }) => {
    const bytes = await backend.get(key);
    await ok(
      async () => {
        const plan = parsePlanRecord(key, bytes ?? Buffer.alloc(0));
        if (!invocations.has(key.split('/')[2]))
          report('dangling-record', key, `is a plan for invocation ${plan.invocation_id}, which has no artifact records`);
      },
      key,
      'bad-record',
      report,
    );
  });
}

/** An output record points at a blob that is whole; a SQL tree's files and bases are whole too. */
async function checkOutputRecords(backend: Backend, goodFiles: Set<string>, report: Report, badFiles: Set<string>): Promise<void> {
  const dangling = (key: string, id: string, message: string): void => {
    badFiles.add(id);
    report('dangling-record', key, message);
  };
  const entries = await backend.list(OUTPUT_RECORDS_PREFIX);
  await forEachLimited(entries, 8, async ({ key }) => {
    const bytes = await backend.get(key);
    await ok(
      async () => {
        const record = parseOutputRecord(key, bytes ?? Buffer.alloc(0));
        if (outputRecordKey(record.invocation_id, record.output, record.sha256) !== key) throw new Error('its content does not match its key');
        if (!goodFiles.has(record.sha256)) return dangling(key, record.sha256, `points at ${record.output} ${record.sha256}, which is missing or damaged`);
        if (record.output !== 'sql') return;
        for (let at: string | null = record.sha256; at !== null; ) {
          if (!goodFiles.has(at)) return dangling(key, at, `its tree's base ${at} is missing or damaged`);
          const doc = parseSqlTree(at, await readBlob(backend, at));
          const missing = Object.entries(doc.files).find(([, [id]]) => !goodFiles.has(id));
          if (missing) return dangling(key, missing[1][0], `its tree names ${missing[0]} as ${missing[1][0]}, which is missing or damaged`);
          at = doc.base;
        }
      },
      key,
      'bad-record',
      report,
    );
  });
}

async function ok(check: () => Promise<unknown>, key: string, kind: ProblemKind, report: Report): Promise<boolean> {
  try {
    await check();
    return true;
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    report(kind, key, isAtticError(error) ? message.replace(/ Run 'dbtattic verify'.*$/, '') : message);
    return false;
  }
}
