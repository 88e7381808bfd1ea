import { statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { MemBackend } from '../../../src/archive/backends/mem.js';
import { captureTarget } from '../../../src/capture/capture.js';
import { writeSyntheticTarget } from '../../helpers/synthetic-artifacts.js';

describe('capture progress', () => {
  it('reports the bytes stored so far of the bytes to store, ending at the total', async () => {
    const target = writeSyntheticTarget({ invocationId: '9a0e4c52-1111-4222-8333-444455556666', padNodes: 3000 });
    const total = ['manifest.json', 'run_results.json'].reduce((sum, f) => sum + statSync(path.join(target, f)).size, 0);
    const seen: [number, number][] = [];
    await captureTarget(new MemBackend(), {
      targetDir: target,
      artifacts: ['manifest', 'run_results'],
      phase: 'manual',
      toolVersion: 't',
      branch: null,
      onProgress: (done, all) => seen.push([done, all]),
    });
    expect(seen.length).toBeGreaterThan(1);
    expect(seen.every(([, all]) => all === total)).toBe(true);
    expect(seen.map(([done]) => done)).toEqual([...seen.map(([done]) => done)].sort((a, b) => a - b));
    expect(seen.at(-1)![0]).toBe(total);
  });
});
