import { describe, expect, it } from 'vitest';
import type { Backend } from '../../../src/archive/backend.js';
import { MemBackend } from '../../../src/archive/backends/mem.js';
import { listJournalIds, putJournalEntry, readChangeStamp, readJournalEntries } from '../../../src/archive/index.js';

/** The journal as docs/archive-format.md lays it out: records/journal/<capture_id>.json. */
const SHA = 'b'.repeat(64);
const ENTRY = {
  journal_id: '0190a1b2c3d4e-000000000001',
  captures: ['0190a1b2c3d4e-000000000001'],
  artifact_records: [{ invocation_id: 'inv 1', artifact: 'manifest' as const, sha256: SHA }],
};

describe('journal entries', () => {
  it('are written once under records/journal/<id>.json, as one JSON line with kind and format', async () => {
    const backend = new MemBackend();
    await putJournalEntry(backend, ENTRY);
    await putJournalEntry(backend, { ...ENTRY, captures: ['another'] });
    const text = (await backend.get(`records/journal/${ENTRY.journal_id}.json`))?.toString('utf8');
    expect(text?.endsWith('}\n')).toBe(true);
    expect(JSON.parse(text ?? '')).toEqual({ kind: 'journal', format: 1, ...ENTRY });
  });

  it('are listed in id order, after a given id only, leaving out what is not an entry', async () => {
    const backend = new MemBackend();
    for (const id of ['0000000000003-c', '0000000000001-a', 'a b', '0000000000002-b']) await putJournalEntry(backend, { ...ENTRY, journal_id: id });
    await backend.putIfAbsent('records/journal/0000000000004-d.json.tmp', Buffer.from('{}'));
    expect(await listJournalIds(backend)).toEqual(['0000000000001-a', '0000000000002-b', '0000000000003-c', 'a b']);
    expect(await listJournalIds(backend, '0000000000002-b')).toEqual(['0000000000003-c', 'a b']);
  });

  it('are read back as the artifact record keys they name, and a forget entry with its forget id', async () => {
    const backend = new MemBackend();
    await putJournalEntry(backend, ENTRY);
    await putJournalEntry(backend, { journal_id: 'f', captures: [], artifact_records: [], forget_id: 'forget-1' });
    const entries = await readJournalEntries(backend, [ENTRY.journal_id, 'f']);
    expect(entries.sort((a, b) => a.id.localeCompare(b.id))).toStrictEqual([
      { id: ENTRY.journal_id, captures: ENTRY.captures, artifactKeys: [`records/invocations/inv%201/manifest-${SHA}.json`] },
      { id: 'f', captures: [], artifactKeys: [], forgetId: 'forget-1' },
    ]);
  });

  it('skip an entry that is missing, not JSON, or not a journal entry (verify reports those)', async () => {
    const backend = new MemBackend();
    const damaged: Record<string, string> = {
      'not-json': '{"kind": "jour',
      'other-kind': JSON.stringify({ ...ENTRY, kind: 'capture' }),
      'no-captures': JSON.stringify({ kind: 'journal', artifact_records: [] }),
      'no-records': JSON.stringify({ kind: 'journal', captures: [] }),
      'bad-forget': JSON.stringify({ kind: 'journal', captures: [], artifact_records: [], forget_id: 7 }),
    };
    for (const [id, text] of Object.entries(damaged)) await backend.putIfAbsent(`records/journal/${id}.json`, Buffer.from(text));
    const entries = await readJournalEntries(backend, ['missing', ...Object.keys(damaged)]);
    expect(entries).toStrictEqual([{ id: 'bad-forget', captures: [], artifactKeys: [] }]);
  });
});

describe('the change stamp', () => {
  it('is the stamp of the folders every filing changes, and null where the storage has none', async () => {
    const asked: string[][] = [];
    const stamped: Backend = Object.assign(new MemBackend(), {
      folderStamp: async (prefixes: readonly string[]) => {
        asked.push([...prefixes]);
        return 'stamp';
      },
    });
    expect(await readChangeStamp(stamped)).toBe('stamp');
    expect(asked[0]?.sort()).toEqual(['records/captures/', 'records/forgotten/', 'records/invocations/', 'records/journal/', 'records/outputs/']);
    expect(await readChangeStamp(new MemBackend())).toBeNull();
  });
});
