import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
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
 * Only chunks take room: chunks are written several at once, so which of them land before the
 * disk is full depends on timing, and a test that let them share the room with the records would
 * sometimes fill the disk before the capture record (a capture that then fails as a whole, exit 7,
 * which is a different promise from the one pinned here).
 */
class FillingBackend extends MemBackend {
  constructor(private room: number) {
    super();
  }

  override async putIfAbsent(key: string, data: Uint8Array): Promise<boolean> {
    if (!key.startsWith('chunks/')) return super.putIfAbsent(key, data);
    if (data.length > this.room) throw new AtticError('no-space', 'No space left on the disk of the archive mem:. Free space there and run the command again.');
    this.room -= data.length;
    return super.putIfAbsent(key, data);
  }
}

/** Text that does not compress, the same on every run: the chunks and what fits are fixed. */
function incompressible(length: number): string {
  const blocks: Buffer[] = [];
  for (let i = 0; blocks.length * 32 < length; i++) blocks.push(createHash('sha256').update(String(i)).digest());
  return Buffer.concat(blocks).toString('base64').slice(0, length);
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
    Object.values(manifest.nodes)[0]!.raw_code = incompressible(800_000); // incompressible, bigger than the room, the same on every run
    writeFileSync(manifestFile, JSON.stringify(manifest));
    const backend = new FillingBackend(200_000);
    await backend.putIfAbsent('FORMAT', Buffer.from(`${ARCHIVE_FORMAT}\n`));
    const { record } = await captureTarget(backend, {
      targetDir: target,
      artifacts: ['manifest', 'run_results'],
      phase: 'manual',
      toolVersion: 't',
      branch: null,
    });
    const byArtifact = Object.fromEntries(record!.artifacts.map((a) => [a.artifact, a]));
    expect(byArtifact.manifest).toMatchObject({ status: 'error', error: expect.stringContaining('No space left') });
    expect(byArtifact.run_results).toMatchObject({ status: 'captured', invocation_id: id });
    const runResults = path.join(target, 'run_results.json');
    expect(sha256Of(await readBlob(backend, sha256Of(runResults)))).toBe(sha256Of(runResults));
    expect(await verifyArchive(backend)).toMatchObject({ ok: true, problems: [] });
  });

  it('an output that does not fit is an error row; the artifacts after it are still captured', async () => {
    const target = mkdtempSync(path.join(os.tmpdir(), 'attic-full-'));
    dirs.push(target);
    const id = '0000000f-0000-4000-8000-00000000f012';
    writeSyntheticTarget({ invocationId: id, generatedAt: '2026-01-01T00:00:00.000000Z' }, target);
    // Written after the invocation began, so it is its SQL; incompressible and bigger than the room.
    const sqlDir = path.join(target, 'compiled', 'attic', 'models');
    mkdirSync(sqlDir, { recursive: true });
    writeFileSync(path.join(sqlDir, 'big.sql'), `select '${incompressible(600_000)}' as x`);
    // Less room than any chunk of that file takes (16 KiB and more), more than the artifacts need.
    const backend = new FillingBackend(12_000);
    await backend.putIfAbsent('FORMAT', Buffer.from(`${ARCHIVE_FORMAT}\n`));
    const outputs = { logDir: null, sql: true, logs: false, sqlCacheFile: null };
    const { record } = await captureTarget(backend, {
      targetDir: target,
      artifacts: ['manifest', 'run_results'],
      phase: 'manual',
      toolVersion: 't',
      branch: null,
      outputs,
    });
    expect(record!.outputs).toEqual([
      expect.objectContaining({ output: 'sql', status: 'error', invocation_id: id, error: expect.stringContaining('No space left') }),
    ]);
    expect(record!.artifacts.map((a) => [a.artifact, a.status])).toEqual([
      ['manifest', 'captured'],
      ['run_results', 'captured'],
    ]);
    for (const file of ['manifest.json', 'run_results.json']) {
      const bytes = path.join(target, file);
      expect(sha256Of(await readBlob(backend, sha256Of(bytes)))).toBe(sha256Of(bytes));
    }
    expect(await verifyArchive(backend)).toMatchObject({ ok: true, problems: [] });
  });
});
