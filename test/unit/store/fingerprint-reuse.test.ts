import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { extractManifest } from '../../../src/extract/index.js';
import { buildFixtureStore, type FixtureStore } from './fixture-store.js';

/**
 * Ingest carries fingerprints over from the manifest stored before (extract/fingerprint-reuse.ts).
 * The fixture history edits a macro the models call (steps 10 and 11), so some carried over and
 * some not: every fingerprint the store holds must be the one the manifest alone gives.
 */
let fx: FixtureStore;
beforeAll(async () => {
  fx = await buildFixtureStore();
});
afterAll(() => fx?.close());

/** unique_id → fingerprint, read from the manifest's JSON with nothing carried over. */
function freshFingerprints(manifest: unknown): Map<string, string | null> {
  const fingerprints = new Map<string, string | null>();
  for (const entry of extractManifest(Buffer.from(JSON.stringify(manifest))).entries()) {
    if (entry.kind === 'node' && entry.invocation.fingerprint !== null) fingerprints.set(entry.invocation.unique_id, entry.invocation.fingerprint);
  }
  return fingerprints;
}

describe('fingerprints carried over at ingest', () => {
  it('equal those computed afresh from each manifest, through edits of the macros models call', async () => {
    let compared = 0;
    const differFromStep = new Set<number>();
    let previous: Map<string, string | null> | undefined;
    for (const step of fx.steps) {
      const manifest = fx.written(step, 'manifest.json');
      if (!manifest) continue;
      const fresh = freshFingerprints(manifest);
      const rows = await fx.query('SELECT unique_id, fingerprint FROM node_invocation WHERE invocation_id = $1 AND fingerprint IS NOT NULL', [
        step.invocation_id,
      ]);
      expect(new Map(rows.map((r) => [String(r.unique_id), r.fingerprint]))).toEqual(fresh);
      compared += rows.length;
      if (previous && [...fresh].some(([id, fp]) => previous!.has(id) && previous!.get(id) !== fp)) differFromStep.add(step.step);
      previous = fresh;
    }
    expect(compared).toBeGreaterThan(100);
    // The macro edits changed fingerprints: the history holds both cases.
    expect(differFromStep.has(10)).toBe(true);
  });
});
