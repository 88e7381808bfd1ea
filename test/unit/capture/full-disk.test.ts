import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { MemBackend } from '../../../src/archive/backends/mem.js';
import { ARCHIVE_FORMAT, readBlob, verifyArchive } from '../../../src/archive/index.js';
import { captureTarget } from '../../../src/capture/index.js';
import { AtticError } from '../../../src/errors.js';
import { sha256Of } from '../../helpers/archive-files.js';
import { writeSyntheticTarget } from '../../helpers/synthetic-artifacts.js';

/**
 * A disk that fills up, injected through the backend interface (the e2e suite uses a real tmpfs
 * where it may mount one): the same path every backend's "no space" takes through capture.
 */
class FillingBackend extends MemBackend {
  constructor(private room: number) {
    super();
  }

  override async putIfAbsent(key: string, data: Uint8Array): Promise<boolean> {
    if (data.length > this.room) throw new AtticError('no-space', 'No space left on the disk of the archive mem:. Free space there and run the command again.');
    this.room -= data.length;
    return super.putIfAbsent(key, data);
  }
}

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('a disk that fills up during capture', () => {
  it('keeps what was written, captures every artifact that fits, and leaves an archive that verifies', async () => {
    const target = mkdtempSync(path.join(os.tmpdir(), 'attic-full-'));
    dirs.push(target);
    const id = '0000000f-0000-4000-8000-00000000f011';
    writeSyntheticTarget({ invocationId: id }, target);
    const manifestFile = path.join(target, 'manifest.json');
    const manifest = JSON.parse(readFileSync(manifestFile, 'utf8')) as { nodes: Record<string, { raw_code: string }> };
    Object.values(manifest.nodes)[0]!.raw_code = randomBytes(600_000).toString('base64'); // incompressible, bigger than the room
    writeFileSync(manifestFile, JSON.stringify(manifest));
    const backend = new FillingBackend(200_000);
    await backend.putIfAbsent('FORMAT', Buffer.from(`${ARCHIVE_FORMAT}\n`));
    const { record } = await captureTarget(backend, { targetDir: target, artifacts: ['manifest', 'run_results'], phase: 'manual', toolVersion: 't', branch: null });
    const byArtifact = Object.fromEntries(record!.artifacts.map((a) => [a.artifact, a]));
    expect(byArtifact.manifest).toMatchObject({ status: 'error', error: expect.stringContaining('No space left') });
    expect(byArtifact.run_results).toMatchObject({ status: 'captured', invocation_id: id });
    const runResults = path.join(target, 'run_results.json');
    expect(sha256Of(await readBlob(backend, sha256Of(runResults)))).toBe(sha256Of(runResults));
    expect(await verifyArchive(backend)).toMatchObject({ ok: true, problems: [] });
  });
});
