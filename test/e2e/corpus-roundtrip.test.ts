import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { FsBackend } from '../../src/archive/backends/fs.js';
import { openArchive, readBlob, verifyArchive, type Backend } from '../../src/archive/index.js';
import { captureTarget } from '../../src/capture/index.js';
import { listArchivedInvocations, writeStateDir } from '../../src/state/index.js';
import { ARTIFACT_TYPES, sha256 } from '../../src/vocab/index.js';
import { corpusArtifacts, corpusTargetDirs, hasCorpus } from '../helpers/corpus.js';

/**
 * The acceptance sweep: every artifact of the corpus goes into one archive and comes back out
 * byte for byte, through readBlob and through the --state directory. In-process for speed.
 */
const STATE_ARTIFACTS = new Set(['manifest', 'run_results', 'sources']);

/** Newest within an invocation, as the corpus files say: generated_at, then the later capture. */
interface Copy {
  file: string;
  generatedAt: string;
  order: number;
}

function newestFirst(a: Copy, b: Copy): number {
  if (a.generatedAt !== b.generatedAt) return a.generatedAt > b.generatedAt ? -1 : 1;
  return b.order - a.order;
}

function generatedAtOf(bytes: Buffer): string {
  const doc = JSON.parse(bytes.toString('utf8')) as { metadata?: { generated_at?: unknown }; generated_at?: unknown };
  const at = doc.metadata?.generated_at ?? doc.generated_at;
  return typeof at === 'string' ? at : '';
}

describe.skipIf(!hasCorpus)('every corpus artifact round-trips through capture and state', () => {
  const root = mkdtempSync(path.join(os.tmpdir(), 'attic-roundtrip-'));
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it('byte-identically, and the archive verifies', async () => {
    const backend: Backend = await openArchive(path.join(root, 'archive'), { create: true });
    expect(backend).toBeInstanceOf(FsBackend);
    const shaOfFile = new Map<string, string>();
    /** (invocation, artifact) → the corpus files filed there. */
    const copies = new Map<string, Copy[]>();
    const start = Date.parse('2026-01-01T00:00:00Z');

    for (const [order, dir] of corpusTargetDirs().entries()) {
      // Distinct capture times, so "the later capture" is well defined for identical generated_at.
      const outcome = await captureTarget(backend, { targetDir: dir, artifacts: ARTIFACT_TYPES, phase: 'manual', toolVersion: 'test', branch: null, now: new Date(start + order * 1000) });
      for (const a of outcome.record!.artifacts) {
        if (a.status === 'absent') continue;
        expect(a.status, `${a.path}: ${a.error ?? ''}`).toMatch(/^(captured|unchanged)$/);
        const bytes = readFileSync(a.path);
        expect(a.sha256).toBe(sha256(bytes));
        shaOfFile.set(a.path, a.sha256!);
        const key = `${a.invocation_id}\u0000${a.artifact}`;
        copies.set(key, [...(copies.get(key) ?? []), { file: a.path, generatedAt: generatedAtOf(bytes), order }]);
      }
    }

    let covered = 0;
    for (const file of corpusArtifacts()) {
      const sha = shaOfFile.get(file);
      expect(sha, `${file} was not captured`).toBeDefined();
      expect((await readBlob(backend, sha!)).equals(readFileSync(file)), file).toBe(true);
      covered++;
    }
    expect(covered).toBe(corpusArtifacts().length);
    expect(covered).toBeGreaterThan(400);

    let stateFiles = 0;
    const invocations = await listArchivedInvocations(backend);
    for (const [i, invocation] of invocations.entries()) {
      const out = path.join(root, 'state', String(i));
      await writeStateDir(backend, invocation, out);
      for (const artifact of STATE_ARTIFACTS) {
        const filed = copies.get(`${invocation.invocationId}\u0000${artifact}`);
        if (!filed) continue;
        const newest = [...filed].sort(newestFirst)[0]!;
        const written = readFileSync(path.join(out, `${artifact}.json`));
        expect(written.equals(readFileSync(newest.file)), `${artifact} of ${invocation.invocationId}: expected ${newest.file}`).toBe(true);
        stateFiles++;
      }
    }
    expect(stateFiles).toBeGreaterThan(0);
    // The sweep must meet invocations that dbt wrote one artifact of more than once.
    expect([...copies.values()].some((c) => new Set(c.map((copy) => shaOfFile.get(copy.file))).size > 1)).toBe(true);

    const report = await verifyArchive(backend);
    expect(report.problems).toEqual([]);
    expect(report.ok).toBe(true);
    expect(report.checked.files).toBe(new Set(shaOfFile.values()).size);
  }, 300_000);
});
