import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CHUNKS_PREFIX } from '../../../src/archive/layout.js';
import { listCaptureRecordKeys, openArchive, readCaptureRecords, type Backend } from '../../../src/archive/index.js';
import { captureTarget } from '../../../src/capture/index.js';
import { ARTIFACT_TYPES } from '../../../src/vocab/index.js';
import { generateSequence } from '../../../fixtures/generate.mjs';

/**
 * A capture's context (git, CI) is read beside its writes, not before them (capture.ts): only
 * the capture record needs it. What the record says, and what a failing context does, stay as
 * they were.
 */
describe('the context of a capture', () => {
  const root = mkdtempSync(path.join(os.tmpdir(), 'attic-described-'));
  afterAll(() => rmSync(root, { recursive: true, force: true }));
  const [step] = generateSequence(path.join(root, 'sequence'));
  const targetDir = path.join(root, 'sequence', step!.dir, 'target');

  /** The archive, telling `onChunk` when the first chunk has been written. */
  function watched(backend: Backend, onChunk: () => void): Backend {
    return new Proxy(backend, {
      get(target, property, receiver) {
        if (property !== 'putIfAbsent') return Reflect.get(target, property, receiver) as unknown;
        return async (key: string, data: Uint8Array) => {
          const wrote = await target.putIfAbsent(key, data);
          if (key.startsWith(CHUNKS_PREFIX)) onChunk();
          return wrote;
        };
      },
    });
  }

  it('is read while the artifacts are written, and its branch and context land in the record', async () => {
    const backend = await openArchive(path.join(root, 'beside'), { create: true });
    let chunkWritten!: () => void;
    const firstChunk = new Promise<void>((resolve) => (chunkWritten = resolve));
    // Settles only once a chunk is in the archive: a capture that waited for it first would never get there.
    const context = async (): Promise<Record<string, unknown>> => {
      await firstChunk;
      return { git: { branch: 'feature/x', sha: 'abc' } };
    };
    const outcome = await captureTarget(
      watched(backend, () => chunkWritten()),
      { targetDir, artifacts: ARTIFACT_TYPES, phase: 'manual', toolVersion: 'test', branch: null, context },
    );
    expect(outcome.record).toMatchObject({ branch: 'feature/x', context: { git: { branch: 'feature/x', sha: 'abc' } } });
    const [stored] = await readCaptureRecords(backend, await listCaptureRecordKeys(backend));
    expect(stored).toMatchObject({ capture_id: outcome.record!.capture_id, branch: 'feature/x' });
  }, 30_000);

  it('that fails fails the capture, which files no capture record', async () => {
    const backend = await openArchive(path.join(root, 'failing'), { create: true });
    const context = async (): Promise<Record<string, unknown>> => {
      throw new Error('git exploded');
    };
    await expect(
      captureTarget(backend, { targetDir, artifacts: ARTIFACT_TYPES, phase: 'manual', toolVersion: 'test', branch: 'main', context }),
    ).rejects.toThrow('git exploded');
    expect(await listCaptureRecordKeys(backend)).toEqual([]);
  }, 30_000);
});
