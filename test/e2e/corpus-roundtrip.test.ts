import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { FsBackend } from '../../src/archive/backends/fs.js';
import { openArchive, readBlob, verifyArchive, type Backend } from '../../src/archive/index.js';
import { listArchivedInvocations, writeStateDir } from '../../src/state/index.js';
import { sha256 } from '../../src/vocab/index.js';
import { corpusArtifacts, hasCorpus } from '../helpers/corpus.js';
import { captureWholeCorpus } from '../helpers/corpus-capture.js';

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
    for (const { order, artifact: a } of await captureWholeCorpus(backend)) {
      const bytes = readFileSync(a.path);
      expect(a.sha256).toBe(sha256(bytes));
      shaOfFile.set(a.path, a.sha256!);
      const key = `${a.invocation_id}\u0000${a.artifact}`;
      copies.set(key, [...(copies.get(key) ?? []), { file: a.path, generatedAt: generatedAtOf(bytes), order }]);
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
