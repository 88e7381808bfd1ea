import { mkdtempSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { MemBackend } from '../../../src/archive/backends/mem.js';
import { captureTarget } from '../../../src/capture/capture.js';
import { syntheticManifest } from '../../helpers/synthetic-artifacts.js';

const ONE_HOUR_AGO = new Date(Date.now() - 3_600_000);

function setup(): { target: string; manifest: string; cacheFile: string; capture: (backend: MemBackend) => Promise<string[]> } {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'attic-statcache-'));
  const manifest = path.join(dir, 'manifest.json');
  writeFileSync(manifest, syntheticManifest({ invocationId: '11111111-0000-4000-8000-000000000001' }));
  utimesSync(manifest, ONE_HOUR_AGO, ONE_HOUR_AGO);
  const cacheFile = path.join(dir, 'cache.json');
  const capture = async (backend: MemBackend): Promise<string[]> => {
    const { record } = await captureTarget(backend, {
      targetDir: dir,
      artifacts: ['manifest'],
      phase: 'manual',
      toolVersion: 't',
      branch: null,
      statCacheFile: cacheFile,
    });
    return record!.artifacts.map((a) => `${a.status}:${a.invocation_id}`);
  };
  return { target: dir, manifest, cacheFile, capture };
}

describe('the capture stat cache', () => {
  it('remembers a settled file, and still sees a same-size rewrite that kept the old mtime', async () => {
    const { manifest, cacheFile, capture } = setup();
    const backend = new MemBackend();
    expect(await capture(backend)).toEqual(['captured:11111111-0000-4000-8000-000000000001']);
    expect(JSON.parse(readFileSync(cacheFile, 'utf8')).entries[manifest]).toBeDefined();
    expect(await capture(backend)).toEqual(['unchanged:11111111-0000-4000-8000-000000000001']);

    const edited = readFileSync(manifest, 'utf8').replace('11111111-0000-4000-8000-000000000001', '22222222-0000-4000-8000-000000000002');
    writeFileSync(manifest, edited);
    utimesSync(manifest, ONE_HOUR_AGO, ONE_HOUR_AGO); // same size, same mtime: only ctime tells
    expect(await capture(backend)).toEqual(['captured:22222222-0000-4000-8000-000000000002']);
  });

  it('does not remember a file written moments ago (coarse timestamps could hide a rewrite)', async () => {
    const { manifest, cacheFile, capture } = setup();
    writeFileSync(manifest, readFileSync(manifest));
    await capture(new MemBackend());
    expect(JSON.parse(readFileSync(cacheFile, 'utf8')).entries[manifest]).toBeUndefined();
  });

  it('stores a vouched-for file the archive lacks, reading it then', async () => {
    const { capture } = setup();
    await capture(new MemBackend());
    expect(await capture(new MemBackend())).toEqual(['captured:11111111-0000-4000-8000-000000000001']);
  });

  it('survives a corrupt cache file', async () => {
    const { cacheFile, capture } = setup();
    writeFileSync(cacheFile, '{ not json');
    expect(await capture(new MemBackend())).toEqual(['captured:11111111-0000-4000-8000-000000000001']);
  });
});
