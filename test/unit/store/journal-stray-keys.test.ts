import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { MemBackend } from '../../../src/archive/backends/mem.js';
import { putJournalEntry, verifyArchive } from '../../../src/archive/index.js';
import { syncStore } from '../../../src/store/index.js';
import { storedInvocations } from '../../helpers/store-dump.js';
import { file, type Filing } from '../../helpers/archive-builder.js';

/**
 * A remote store's cache lists the journal after the newest entry it read (journal-sync.ts). A
 * key under records/journal/ that is no entry (garbage at ffffffffffffffff.json, or a well-formed
 * name far in the future holding no entry) is no position: the runs filed after it still reach
 * the cache, and a cache that took one for its position before mends at its next sync.
 */
const root = mkdtempSync(path.join(os.tmpdir(), 'attic-journal-stray-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const hour = (h: number): string => new Date(Date.UTC(2026, 11, 1, h)).toISOString();

async function fileWithEntry(backend: MemBackend, filing: Filing): Promise<void> {
  await file(backend, filing);
  const captureId = `${Date.parse(filing.capturedAt!).toString(16).padStart(13, '0')}-${filing.invocationId.slice(0, 12).padEnd(12, '0')}`;
  await putJournalEntry(backend, { journal_id: captureId, captures: [captureId], artifact_records: [] });
}

describe('stray keys in the journal', () => {
  it('are never taken as the newest position: later runs reach the cache, and a blinded cache mends', async () => {
    const backend = new MemBackend();
    await backend.putIfAbsent('FORMAT', Buffer.from('dbtattic-archive 1\n'));
    const store = path.join(root, 'cache', 'store.duckdb');
    const sync = async (): Promise<string[]> => {
      expect(await syncStore(backend, store, 'wait', undefined, { journal: true })).toMatchObject({ problems: [] });
      return storedInvocations(store);
    };
    const ids = ['aaaaaaaa-0000-4000-8000-00000000000a', 'bbbbbbbb-0000-4000-8000-00000000000b', 'cccccccc-0000-4000-8000-00000000000c'];
    await fileWithEntry(backend, { invocationId: ids[0]!, generatedAt: hour(1), capturedAt: hour(1) });
    expect(await sync()).toEqual([ids[0]]);

    await backend.putIfAbsent('records/journal/ffffffffffffffff.json', Buffer.from('not an entry'));
    await backend.putIfAbsent('records/journal/001b000000000-aaaaaaaaaaaa.json', Buffer.from('{}'));
    expect(await sync()).toEqual([ids[0]]);
    await fileWithEntry(backend, { invocationId: ids[1]!, generatedAt: hour(2), capturedAt: hour(2) });
    expect(await sync()).toEqual([ids[0], ids[1]]);

    // A cache that an earlier version let a stray key blind.
    writeFileSync(path.join(path.dirname(store), 'sync.json'), `${JSON.stringify({ newest: 'ffffffffffffffff', done: [] })}\n`);
    await fileWithEntry(backend, { invocationId: ids[2]!, generatedAt: hour(3), capturedAt: hour(3) });
    expect(await sync()).toEqual(ids);
    // verify names both keys.
    const problems = (await verifyArchive(backend)).problems.map((p) => p.key).sort();
    expect(problems).toEqual(['records/journal/001b000000000-aaaaaaaaaaaa.json', 'records/journal/ffffffffffffffff.json']);
  });
});
