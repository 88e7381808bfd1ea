import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { FsBackend } from '../../../src/archive/backends/fs.js';
import { MemBackend } from '../../../src/archive/backends/mem.js';
import { backendFor, openArchiveForCheck, openBackend, verifyArchive, type RemoteOptions } from '../../../src/archive/index.js';

/**
 * How a location picks its storage (README, "Storage"): a path or file: URL is a directory, mem:
 * is in memory, s3:// is object storage opened with the settings configuration gives; any other
 * scheme is refused. The S3 cases run without a server: the store's probed capabilities are
 * cached, and its endpoint is a closed port, so only the first request is seen, and fails.
 */
const dirs: string[] = [];
const tempDir = (): string => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'dbtattic-open-'));
  dirs.push(dir);
  return dir;
};

afterEach(() => {
  vi.unstubAllEnvs();
  vi.restoreAllMocks();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('a local location', () => {
  it('is in memory for mem:, a directory for a path or file: URL, and refused for another scheme', () => {
    expect(backendFor('mem:')).toBeInstanceOf(MemBackend);
    expect(backendFor('mem:second')).toBeInstanceOf(MemBackend);
    const dir = tempDir();
    expect(backendFor(`file://${dir}`).location).toBe(new FsBackend(dir).location);
    // A path that merely holds '://' further on is still a path.
    expect(backendFor('archives/copy-of-s3://x').location).toBe(new FsBackend(path.resolve('archives/copy-of-s3://x')).location);
    for (const location of ['https://user:secret@example.com/archive', 'gs://bucket/prefix']) {
      expect(() => backendFor(location)).toThrow(
        expect.objectContaining({ code: 'config', message: expect.stringContaining('uses a scheme dbtattic does not support') }),
      );
    }
    expect(() => backendFor('https://user:secret@example.com/archive')).toThrow("Archive location 'https://example.com/archive' uses a scheme");
  });

  it('whose FORMAT is missing beside objects opens for verify, which reports it', async () => {
    const dir = tempDir();
    mkdirSync(path.join(dir, 'chunks', 'ab'), { recursive: true });
    writeFileSync(path.join(dir, 'chunks', 'ab', 'cd'), 'x');
    const backend = await openArchiveForCheck(dir);
    expect((await verifyArchive(backend)).problems).toContainEqual({
      kind: 'format',
      key: 'FORMAT',
      message: "expected 'dbtattic-archive 2' or an earlier format this dbtattic reads, found nothing",
    });
  });
});

describe('an s3:// location', () => {
  const STORE = 's3://team-bucket/dbt';

  /** Remote options whose cache already holds the store's capabilities, so opening sends nothing. */
  function remote(extra: Pick<RemoteOptions, 'onRequest'> = {}, env: Record<string, string> = {}): RemoteOptions & { cacheDir: string } {
    const cacheDir = tempDir();
    writeFileSync(
      path.join(cacheDir, 'capabilities.json'),
      JSON.stringify({
        store: STORE,
        endpoint: 'http://127.0.0.1:9',
        createOnly: true,
        compareAndSwap: false,
        quoteEtag: false,
        probedAt: new Date().toISOString(),
      }),
    );
    vi.stubEnv('AWS_ACCESS_KEY_ID', 'x');
    vi.stubEnv('AWS_SECRET_ACCESS_KEY', 'y');
    return { s3: { endpoint: 'http://127.0.0.1:9', region: 'us-east-1', max_attempts: 1, timeout_ms: 2_000 }, cacheDir, env, ...extra };
  }

  it('opens with the settings and cached capabilities given, the cache folder as text or as a setting', async () => {
    const options = remote();
    for (const cacheDir of [options.cacheDir, { value: options.cacheDir }]) {
      const backend = await openBackend(STORE, { ...options, cacheDir });
      expect(backend.location).toBe(STORE);
      expect(backend.capabilities).toEqual({ createOnly: true, compareAndSwap: false, quoteEtag: false, probedAt: expect.any(String) });
    }
  });

  it('hands every request to the listener given, and for verify too', async () => {
    const seen: string[] = [];
    const options = remote({ onRequest: (operation, key) => seen.push(`${operation} ${key}`) }, { DBTATTIC_S3_TRACE: '1' });
    const stderr = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    await expect(openArchiveForCheck(STORE, options)).rejects.toMatchObject({ code: 'remote' });
    expect(seen[0]).toBe('GET FORMAT');
    // The listener given replaces the trace.
    expect(stderr.mock.calls.filter(([text]) => String(text).startsWith('s3 '))).toEqual([]);
  });

  it('traces every request to stderr with DBTATTIC_S3_TRACE=1, and only then', async () => {
    const stderr = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    const traced = (): string[] => stderr.mock.calls.map(([text]) => String(text)).filter((text) => text.startsWith('s3 '));
    await expect((await openBackend(STORE, remote())).get('FORMAT')).rejects.toBeDefined();
    expect(traced()).toEqual([]);
    await expect((await openBackend(STORE, remote({}, { DBTATTIC_S3_TRACE: '1' }))).get('FORMAT')).rejects.toBeDefined();
    expect(traced()).toEqual(['s3 GET FORMAT\n']);
  });
});
