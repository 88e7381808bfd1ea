import { existsSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { MemBackend } from '../../../src/archive/backends/mem.js';
import { ARCHIVE_FORMAT, listArtifactRecords, verifyArchive, type ArtifactRecord, type Backend } from '../../../src/archive/index.js';
import { captureTarget } from '../../../src/capture/index.js';
import { isAtticError } from '../../../src/errors.js';
import { summarizeRunResults } from '../../../src/extract/index.js';
import { chooseState, type StateQuery } from '../../../src/state/index.js';
import { ARTIFACT_TYPES } from '../../../src/vocab/index.js';
import { file, newArchive } from '../../helpers/archive-builder.js';
import { writeSyntheticTarget } from '../../helpers/synthetic-artifacts.js';
import { CORPUS_DIR, corpusCases } from '../../helpers/corpus.js';

/**
 * docs/archive-format.md: a run_results record carries its summary, so `state --last-success`
 * judges runs from their records and reads no run results. On the corpus' real sequences, the
 * choice must be the one made by reading every run_results (the same records with their
 * summaries taken out, as an older dbtattic wrote them).
 */
/** Counts reads of file objects (artifact bytes) through a backend. */
function counting(backend: Backend): { backend: Backend; blobReads: () => number } {
  let reads = 0;
  const wrapped: Backend = Object.create(backend) as Backend;
  wrapped.get = async (key) => {
    if (key.startsWith('files/')) reads++;
    return backend.get(key);
  };
  return { backend: wrapped, blobReads: () => reads };
}

/** The same archive as an older dbtattic would have written it: run_results records without a summary. */
async function withoutSummaries(backend: Backend): Promise<MemBackend> {
  const copy = new MemBackend();
  for (const { key } of await backend.list('')) {
    const bytes = (await backend.get(key))!;
    const record = key.startsWith('records/invocations/') ? (JSON.parse(bytes.toString('utf8')) as ArtifactRecord) : null;
    if (record) delete record.summary;
    await copy.putIfAbsent(key, record ? Buffer.from(`${JSON.stringify(record, null, 2)}\n`) : bytes);
  }
  return copy;
}

async function choice(backend: Backend, query: StateQuery): Promise<string> {
  return chooseState(backend, query).then(
    (chosen) => chosen.invocation.invocationId,
    (error: unknown) => (isAtticError(error) && error.code === 'not-found' ? 'none' : Promise.reject(error)),
  );
}

function sequences(): string[] {
  return readdirSync(CORPUS_DIR).flatMap((project) => {
    const dir = path.join(CORPUS_DIR, project);
    if (!statSync(dir).isDirectory()) return [];
    return readdirSync(dir)
      .filter((name) => name.includes('seq') && statSync(path.join(dir, name)).isDirectory())
      .map((name) => path.join(project, name))
      .filter((seq) => stepsOf(seq).some((step) => existsSync(path.join(step, 'run_results.json'))));
  });
}

function stepsOf(seq: string): string[] {
  const dir = path.join(CORPUS_DIR, seq);
  return readdirSync(dir)
    .sort()
    .map((name) => path.join(dir, name))
    .filter((step) => statSync(step).isDirectory());
}

/** Results by status as read here from the JSON (dbt 0.19+: flat results with a status). */
function countsOf(runResults: string): { total: number; by_status: Record<string, number> } | null {
  const doc = JSON.parse(readFileSync(runResults, 'utf8')) as {
    metadata?: { dbt_schema_version?: string };
    results: { unique_id?: string; status?: string }[];
  };
  if (!doc.metadata?.dbt_schema_version) return null;
  const results = doc.results.filter((r) => typeof r.unique_id === 'string');
  const byStatus: Record<string, number> = {};
  for (const r of results) byStatus[String(r.status).toLowerCase()] = (byStatus[String(r.status).toLowerCase()] ?? 0) + 1;
  return { total: results.length, by_status: byStatus };
}

const QUERIES: StateQuery[] = [
  {},
  { commands: ['build', 'run', 'test', 'seed', 'snapshot', 'compile', 'docs generate'] },
  { target: 'prod' },
  { branch: 'main' },
];

describe('state judges runs by the summaries in their records', () => {
  it.each(corpusCases(sequences, '(corpus absent)'))('%s: the same choice as reading every run_results, with none read', async (seq) => {
    if (seq === '(corpus absent)') return;
    const archive = new MemBackend();
    for (const [i, step] of stepsOf(seq).entries()) {
      await captureTarget(archive, {
        targetDir: step,
        artifacts: [...ARTIFACT_TYPES],
        phase: 'manual',
        toolVersion: 'test',
        branch: 'main',
        now: new Date(Date.UTC(2026, 0, 5, 12, i)),
      });
    }
    const summarised = (await listArtifactRecords(archive)).filter((r) => r.artifact === 'run_results');
    expect(summarised.length).toBeGreaterThan(0);
    for (const record of summarised) expect(record.summary).toBeDefined();
    const older = await withoutSummaries(archive);
    for (const query of QUERIES) {
      const fromRecords = counting(archive);
      const fromResults = counting(older);
      const expected = await choice(fromResults.backend, query);
      expect(await choice(fromRecords.backend, query), JSON.stringify(query)).toBe(expected);
      expect(fromRecords.blobReads()).toBe(0);
    }
    // Each summary says what the JSON says.
    for (const step of stepsOf(seq)) {
      const facts = existsSync(path.join(step, 'run_results.json')) ? countsOf(path.join(step, 'run_results.json')) : null;
      if (!facts) continue;
      const id = (JSON.parse(readFileSync(path.join(step, 'run_results.json'), 'utf8')) as { metadata: { invocation_id: string } }).metadata.invocation_id;
      const record = summarised.filter((r) => r.invocation_id === id).sort((a, b) => (a.captured_at < b.captured_at ? 1 : -1))[0];
      expect(record?.summary).toMatchObject(facts);
    }
  });

  it('an archive of an older dbtattic (no summaries) is judged by reading run_results, with the same choice', async () => {
    const backend = newArchive();
    const at = (hour: number): string => `2026-01-02T${String(hour).padStart(2, '0')}:00:00Z`;
    await file(backend, { invocationId: 'good', generatedAt: at(1), command: 'build' });
    for (let hour = 2; hour < 12; hour++) await file(backend, { invocationId: `failed-${hour}`, generatedAt: at(hour), command: 'build', statuses: ['error'] });
    const counted = counting(backend);
    expect(await choice(counted.backend, {})).toBe('good');
    expect(counted.blobReads()).toBeGreaterThanOrEqual(11);
  });
});

describe('verify checks each summary against its run results', () => {
  it('a summary that says other than its results is a bad record', async () => {
    const target = writeSyntheticTarget({ invocationId: 'cafe0000-1111-4222-8333-444444444444', statuses: ['success', 'error'] });
    onTestFinished(() => rmSync(target, { recursive: true, force: true }));
    const archive = new MemBackend();
    await archive.putIfAbsent('FORMAT', Buffer.from(`${ARCHIVE_FORMAT}\n`));
    await captureTarget(archive, {
      targetDir: target,
      artifacts: ['manifest', 'run_results'],
      phase: 'pre',
      toolVersion: 'test',
      branch: 'main',
      now: new Date(),
    });
    const [record] = (await listArtifactRecords(archive)).filter((r) => r.artifact === 'run_results');
    expect(record!.summary).toMatchObject({ total: 2, by_status: { success: 1, error: 1 } });
    expect((await verifyArchive(archive, undefined, summarizeRunResults)).problems).toEqual([]);
    const key = (await archive.list('records/invocations/')).map((k) => k.key).find((k) => k.includes('/run_results-'))!;
    await archive.delete(key);
    await archive.putIfAbsent(key, Buffer.from(JSON.stringify({ ...record, summary: { ...record!.summary, by_status: { success: 2 } } })));
    expect((await verifyArchive(archive, undefined, summarizeRunResults)).problems).toEqual([
      { kind: 'bad-record', key, message: 'its summary does not match the run results it points at' },
    ]);
  });
});
