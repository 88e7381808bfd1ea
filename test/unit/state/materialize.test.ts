import { mkdirSync, mkdtempSync, readFileSync, readdirSync, renameSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkStateDir, listArchivedInvocations, STATE_DIR_MARKER, writeStateDir } from '../../../src/state/index.js';
import { syntheticManifest, syntheticRunResults } from '../../helpers/synthetic-artifacts.js';
import { file, newArchive } from '../../helpers/archive-builder.js';
import { MemBackend } from '../../../src/archive/backends/mem.js';
import { FILES_PREFIX } from '../../../src/archive/layout.js';

describe('writeStateDir', () => {
  it('writes the archived bytes of manifest, run_results and sources, and removes a stale file of one it lacks', async () => {
    const backend = newArchive();
    const inv = { invocationId: 'inv', generatedAt: '2026-01-02T10:00:00Z', statuses: ['success', 'pass'] };
    await file(backend, { ...inv, artifacts: ['manifest', 'run_results', 'sources'] });
    await file(backend, { invocationId: 'older', generatedAt: '2026-01-01T10:00:00Z', artifacts: ['manifest'] });
    const [withAll, manifestOnly] = await listArchivedInvocations(backend);
    const dir = path.join(mkdtempSync(path.join(os.tmpdir(), 'dbtattic-state-')), 'state');
    const written = await writeStateDir(backend, withAll!, dir);
    expect(written).toEqual(['manifest.json', 'run_results.json', 'sources.json'].map((name) => path.join(dir, name)));
    expect(readFileSync(path.join(dir, 'manifest.json'), 'utf8')).toBe(syntheticManifest(inv));
    expect(readFileSync(path.join(dir, 'run_results.json'), 'utf8')).toBe(syntheticRunResults(inv));
    expect(await writeStateDir(backend, manifestOnly!, dir)).toEqual([path.join(dir, 'manifest.json')]);
    expect(readdirSync(dir).sort()).toEqual([STATE_DIR_MARKER, 'manifest.json']);
  });

  it('leaves a file that already holds the right bytes alone, and replaces one that does not', async () => {
    const backend = newArchive();
    await file(backend, { invocationId: 'inv', artifacts: ['manifest'] });
    const [inv] = await listArchivedInvocations(backend);
    const dir = mkdtempSync(path.join(os.tmpdir(), 'dbtattic-state-'));
    const manifest = path.join(dir, 'manifest.json');
    await writeStateDir(backend, inv!, dir);
    const first = statSync(manifest).ino;
    await writeStateDir(backend, inv!, dir);
    expect(statSync(manifest).ino).toBe(first);
    writeFileSync(manifest, 'stale');
    await writeStateDir(backend, inv!, dir);
    expect(readFileSync(manifest, 'utf8')).toBe(syntheticManifest({ invocationId: 'inv', generatedAt: '2026-01-02T03:04:05.678901Z' }));
    expect(readdirSync(dir).sort()).toEqual([STATE_DIR_MARKER, 'manifest.json']);
  });
});

/** An archive that counts the blobs read from it (their file indexes). */
class CountingBackend extends MemBackend {
  blobReads = 0;
  override async get(key: string): Promise<Buffer | undefined> {
    if (key.startsWith(FILES_PREFIX)) this.blobReads++;
    return super.get(key);
  }
}

describe('writeStateDir, written again', () => {
  async function setUp(): Promise<{
    backend: CountingBackend;
    inv: Awaited<ReturnType<typeof listArchivedInvocations>>[number];
    dir: string;
    manifest: string;
  }> {
    const backend = new CountingBackend();
    await file(backend, { invocationId: 'inv', artifacts: ['manifest'] });
    const [inv] = await listArchivedInvocations(backend);
    const dir = mkdtempSync(path.join(os.tmpdir(), 'dbtattic-state-'));
    backend.blobReads = 0;
    await writeStateDir(backend, inv!, dir);
    expect(backend.blobReads).toBe(1);
    return { backend, inv: inv!, dir, manifest: path.join(dir, 'manifest.json') };
  }

  it('does not read the blob again while the file is the one it wrote', async () => {
    const { backend, inv, dir } = await setUp();
    await writeStateDir(backend, inv, dir);
    await writeStateDir(backend, inv, dir);
    expect(backend.blobReads).toBe(1);
  });

  it('reads it again, and writes the archived bytes, when the file was replaced with other bytes of the same size', async () => {
    const { backend, inv, dir, manifest } = await setUp();
    const archived = readFileSync(manifest, 'utf8');
    const other = path.join(dir, 'other');
    writeFileSync(other, archived.replace('inv', 'vni'));
    renameSync(other, manifest);
    await writeStateDir(backend, inv, dir);
    expect(backend.blobReads).toBe(2);
    expect(readFileSync(manifest, 'utf8')).toBe(archived);
  });

  it('reads it again when the file was edited in place', async () => {
    const { backend, inv, dir, manifest } = await setUp();
    const archived = readFileSync(manifest, 'utf8');
    writeFileSync(manifest, `${archived} `);
    await writeStateDir(backend, inv, dir);
    expect(backend.blobReads).toBe(2);
    expect(readFileSync(manifest, 'utf8')).toBe(archived);
  });
});

describe('checkStateDir', () => {
  it('accepts a new, empty or marked directory and refuses a file or a directory of other files', async () => {
    const root = mkdtempSync(path.join(os.tmpdir(), 'dbtattic-state-check-'));
    await expect(checkStateDir(path.join(root, 'new'))).resolves.toBeUndefined();
    mkdirSync(path.join(root, 'empty'));
    await expect(checkStateDir(path.join(root, 'empty'))).resolves.toBeUndefined();
    mkdirSync(path.join(root, 'marked'));
    writeFileSync(path.join(root, 'marked', STATE_DIR_MARKER), '');
    writeFileSync(path.join(root, 'marked', 'manifest.json'), '{}');
    await expect(checkStateDir(path.join(root, 'marked'))).resolves.toBeUndefined();
    mkdirSync(path.join(root, 'mine'));
    writeFileSync(path.join(root, 'mine', 'notes.txt'), 'keep');
    await expect(checkStateDir(path.join(root, 'mine'))).rejects.toThrow(
      `${path.join(root, 'mine')} already holds files and is not a state directory dbtattic made`,
    );
    writeFileSync(path.join(root, 'a-file'), '');
    await expect(checkStateDir(path.join(root, 'a-file'))).rejects.toThrow('is a file, not a directory');
  });
});
