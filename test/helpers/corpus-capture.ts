import { expect } from 'vitest';
import type { Backend, CapturedArtifact } from '../../src/archive/index.js';
import { captureTarget } from '../../src/capture/index.js';
import { ARTIFACT_TYPES } from '../../src/vocab/index.js';
import { corpusTargetDirs } from './corpus.js';

export interface CorpusCapture {
  /** The corpus target dir's place in the capture order: later captures have later times. */
  order: number;
  artifact: CapturedArtifact;
}

/**
 * Captures every target dir of the corpus into `backend`, in order, one second apart (so "the
 * later capture" is defined even where dbt's generated_at ties), and returns each artifact
 * present, after checking it was captured or already archived.
 */
export async function captureWholeCorpus(backend: Backend): Promise<CorpusCapture[]> {
  const start = Date.parse('2026-01-01T00:00:00Z');
  const captured: CorpusCapture[] = [];
  for (const [order, dir] of corpusTargetDirs().entries()) {
    const outcome = await captureTarget(backend, {
      targetDir: dir,
      artifacts: ARTIFACT_TYPES,
      phase: 'manual',
      toolVersion: 'test',
      branch: null,
      now: new Date(start + order * 1000),
    });
    for (const artifact of outcome.record!.artifacts) {
      if (artifact.status === 'absent') continue;
      expect(artifact.status, `${artifact.path}: ${artifact.error ?? ''}`).toMatch(/^(captured|unchanged)$/);
      captured.push({ order, artifact });
    }
  }
  return captured;
}
