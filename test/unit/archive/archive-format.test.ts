import { describe, expect, it } from 'vitest';
import { archiveFormatOn } from '../../../src/archive/archive-format.js';
import { MemBackend } from '../../../src/archive/backends/mem.js';
import { openArchiveOn } from '../../../src/archive/open.js';
import { GuardedBackend } from '../../../src/archive/prune-guard.js';

/** The format is the opened archive's, not the backend's: a backend never opened has none, and a stand-in has its backend's. */
describe('archiveFormatOn', () => {
  it('is the FORMAT read when the archive was opened, followed by a guarded view of it', async () => {
    const backend = new MemBackend();
    expect(archiveFormatOn(backend)).toBeUndefined();
    const guarded = new GuardedBackend(backend);
    await backend.putIfAbsent('FORMAT', Buffer.from('dbtattic-archive 1\n'));
    await openArchiveOn(backend, false);
    expect(archiveFormatOn(backend)).toBe(1);
    expect(archiveFormatOn(guarded)).toBe(1);
    expect(archiveFormatOn(new MemBackend())).toBeUndefined();
  });
});
