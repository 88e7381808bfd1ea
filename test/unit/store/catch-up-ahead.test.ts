import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { openArchive } from '../../../src/archive/index.js';
import { captureTarget, filedManifestInvocation } from '../../../src/capture/index.js';
import { takePrior, type CatchUpAhead } from '../../../src/store/sync/catch-up-ahead.js';
import { rebuildStore, syncStore } from '../../../src/store/index.js';
import { openAheadOfCatchUp } from '../../../src/store/sync/sync.js';
import { ARTIFACT_TYPES } from '../../../src/vocab/index.js';
import { generateSequence } from '../../../fixtures/generate.mjs';
import { dumpStore, expectSameRows } from '../../helpers/store-dump.js';

/**
 * The catch-up after a capture opens the store and reads the prior manifest and the stored
 * versions while the capture writes the archive (store/sync/catch-up-ahead.ts). What it read then must
 * be what it would have read after: the store it leaves is the one a rebuild derives.
 */
const readings = vi.hoisted(() => ({ calls: [] as string[] }));

vi.mock('../../../src/store/ingest/prior-manifest.js', async (importOriginal) => {
  const original = await importOriginal<typeof import('../../../src/store/ingest/prior-manifest.js')>();
  return {
    ...original,
    readPriorManifest: async (...args: Parameters<typeof original.readPriorManifest>) => {
      readings.calls.push(args[1]);
      return original.readPriorManifest(...args);
    },
  };
});

const START = Date.parse('2024-06-03T12:00:00Z');

describe('the store read ahead of the catch-up after a capture', () => {
  const root = mkdtempSync(path.join(os.tmpdir(), 'attic-ahead-'));
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it('derives, capture after capture, the store a rebuild derives, reading each prior manifest once', async () => {
    const steps = generateSequence(path.join(root, 'sequence'));
    const backend = await openArchive(path.join(root, 'archive'), { create: true });
    const file = path.join(root, 'store.duckdb');
    let readAhead = 0;
    for (const step of steps) {
      let opening: Promise<CatchUpAhead | null> | undefined;
      const outcome = await captureTarget(backend, {
        targetDir: path.join(root, 'sequence', step.dir, 'target'),
        artifacts: ARTIFACT_TYPES,
        phase: 'manual',
        toolVersion: 'test',
        branch: 'main',
        now: new Date(START + step.step * 60_000),
        onWriting: (plan) => void (opening = openAheadOfCatchUp(file, filedManifestInvocation(plan))),
      });
      const ahead = await opening;
      expect(ahead, `step ${step.step}: the store opened ahead`).not.toBeNull();
      const before = readings.calls.length;
      // Taken by the ingest that uses it: noted now.
      const priorFor = ahead?.prior?.invocationId;
      if (priorFor) readAhead++;
      const report = await syncStore(backend, file, 'skip', undefined, { captureIds: [outcome.record!.capture_id] }, ahead ?? undefined);
      expect(report).toMatchObject({ status: 'synced', problems: [] });
      // The prior manifest read ahead is the one ingest used: it was not read again.
      if (priorFor) expect(readings.calls.slice(before), `step ${step.step}`).not.toContain(priorFor);
    }
    // Every step but the first files a manifest with one stored before it.
    expect(readAhead).toBeGreaterThan(steps.length / 2);
    const rebuilt = path.join(root, 'rebuilt.duckdb');
    await rebuildStore(backend, rebuilt);
    expectSameRows(await dumpStore(file), await dumpStore(rebuilt));
  });

  it('hands the prior reading only to the first invocation ingested, and only if it was read for it', () => {
    const reading = { entries: new Map() };
    const ahead = (id: string) => ({ prior: { invocationId: id, reading } }) as unknown as CatchUpAhead;
    const first = ahead('a');
    expect(takePrior(first, 'a')).toBe(reading);
    expect(takePrior(first, 'a'), 'a second invocation: the first may have filed a manifest since').toBeUndefined();
    const other = ahead('a');
    expect(takePrior(other, 'b'), 'another invocation ingested first').toBeUndefined();
    expect(takePrior(other, 'a'), 'after another invocation').toBeUndefined();
    expect(takePrior(undefined, 'a')).toBeUndefined();
  });
});
