import { describe, expect, it } from 'vitest';
import { MemBackend } from '../../../src/archive/backends/mem.js';
import {
  advanceBranch,
  applyForget,
  createBranch,
  putCaptureRecord,
  readBranch,
  transferArchive,
  verifyArchive,
  type Backend,
} from '../../../src/archive/index.js';
import { file } from '../../helpers/archive-builder.js';

/**
 * push/pull (docs/branches.md): how branch heads merge in the cases where the order of the
 * two sides' captures decides, and what the journal entry of a transfer names.
 */
const now = new Date('2026-03-01T00:00:00Z');

function captureOnly(backend: Backend, id: string, branch = 'main'): Promise<boolean> {
  return putCaptureRecord(backend, {
    kind: 'capture',
    format: 1,
    capture_id: id,
    phase: 'manual',
    captured_at: now.toISOString(),
    tool_version: 't',
    branch,
    context: {},
    run: null,
    artifacts: [],
  });
}

async function capture(backend: Backend, id: string, branch = 'main'): Promise<void> {
  await captureOnly(backend, id, branch);
  await advanceBranch(backend, branch, id, null, now);
}

/** Storage without compare-and-swap (S3 without conditional writes): heads are entries beside the ref. */
class CreateOnlyMem extends MemBackend {
  override readonly capabilities = { createOnly: true, compareAndSwap: false };
}

const head = async (backend: Backend, name = 'main'): Promise<string | null | undefined> => (await readBranch(backend, name))?.head_capture_id;

describe('merging branch heads', () => {
  it('advances a branch the target has with no head yet, once the source has captured on it', async () => {
    const [a, b] = [new MemBackend(), new MemBackend()];
    await createBranch(a, 'feature', null, now);
    await transferArchive(a, b);
    await capture(a, '0000000000001-aaaaaaaaaaaa', 'feature');
    expect((await transferArchive(a, b)).branches).toEqual([{ name: 'feature', outcome: 'advanced', source: '0000000000001-aaaaaaaaaaaa', target: null }]);
    expect(await head(b, 'feature')).toBe('0000000000001-aaaaaaaaaaaa');
  });

  it('leaves alone a head the target has when the source has none on that branch', async () => {
    const [a, b] = [new MemBackend(), new MemBackend()];
    await createBranch(a, 'feature', null, now);
    await transferArchive(a, b);
    await capture(b, '0000000000002-bbbbbbbbbbbb', 'feature');
    expect((await transferArchive(a, b)).branches).toEqual([{ name: 'feature', outcome: 'same', source: null, target: '0000000000002-bbbbbbbbbbbb' }]);
    expect(await head(b, 'feature')).toBe('0000000000002-bbbbbbbbbbbb');
  });

  it("calls two heads neither side knew diverged even when the source captured later, and keeps the target's", async () => {
    const [a, b] = [new MemBackend(), new MemBackend()];
    await capture(a, '0000000000001-aaaaaaaaaaaa');
    await transferArchive(a, b);
    await capture(b, '0000000000003-bbbbbbbbbbbb');
    await capture(a, '0000000000004-aaaaaaaaaaaa');
    expect((await transferArchive(a, b)).branches).toEqual([
      { name: 'main', outcome: 'diverged', source: '0000000000004-aaaaaaaaaaaa', target: '0000000000003-bbbbbbbbbbbb' },
    ]);
    expect(await head(b)).toBe('0000000000003-bbbbbbbbbbbb');
  });

  it("calls a source that knows the target's newer head behind, not advanced", async () => {
    const [a, b] = [new MemBackend(), new MemBackend()];
    await capture(a, '0000000000001-aaaaaaaaaaaa');
    await transferArchive(a, b);
    await capture(b, '0000000000002-bbbbbbbbbbbb');
    // The source holds the target's newer capture (copied by a pull cut short before its heads).
    await captureOnly(a, '0000000000002-bbbbbbbbbbbb');
    expect((await transferArchive(a, b)).branches).toEqual([
      { name: 'main', outcome: 'behind', source: '0000000000001-aaaaaaaaaaaa', target: '0000000000002-bbbbbbbbbbbb' },
    ]);
    expect(await head(b)).toBe('0000000000002-bbbbbbbbbbbb');
  });

  it("gives a branch created on storage without compare-and-swap the source's head", async () => {
    const [a, b] = [new MemBackend(), new CreateOnlyMem()];
    await capture(a, '0000000000001-aaaaaaaaaaaa');
    expect((await transferArchive(a, b)).branches[0]).toMatchObject({ outcome: 'created' });
    expect(await head(b)).toBe('0000000000001-aaaaaaaaaaaa');
  });
});

/** A source that lists keys newest first and answers the first reads last, as a remote may. */
function scrambled(inner: Backend): Backend {
  let reads = 0;
  return new Proxy(inner, {
    get(target, prop, receiver) {
      if (prop === 'list') return async (prefix: string, after?: string) => (await target.list(prefix, after)).reverse();
      if (prop === 'get') {
        return async (key: string) => {
          await new Promise((resolve) => setTimeout(resolve, Math.max(0, 40 - 8 * reads++)));
          return target.get(key);
        };
      }
      const value = Reflect.get(target, prop, receiver) as unknown;
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  }) as Backend;
}

/** A source from which `gone` vanish after `reads` reads each (a prune or branch delete there, mid-transfer). */
function vanishing(inner: Backend, gone: string[], reads = 0): Backend {
  const seen = new Map<string, number>();
  return new Proxy(inner, {
    get(target, prop, receiver) {
      if (prop === 'get') {
        return async (key: string) => {
          const n = seen.get(key) ?? 0;
          seen.set(key, n + 1);
          return gone.includes(key) && n >= reads ? undefined : target.get(key);
        };
      }
      const value = Reflect.get(target, prop, receiver) as unknown;
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  }) as Backend;
}

async function journalEntries(
  backend: Backend,
): Promise<{ captures: string[]; artifact_records: { invocation_id: string; artifact: string; sha256: string }[] }[]> {
  const keys = (await backend.list('records/journal/')).map((k) => k.key);
  return Promise.all(keys.map(async (key) => JSON.parse((await backend.get(key))!.toString('utf8'))));
}

describe('what a transfer copies and names', () => {
  it('writes a journal entry before copying captures alone, or one record with its capture', async () => {
    const [a, b] = [new MemBackend(), new MemBackend()];
    await capture(a, '0000000000001-aaaaaaaaaaaa');
    await transferArchive(a, b, undefined, now);
    expect(await journalEntries(b)).toEqual([
      { kind: 'journal', format: 1, journal_id: expect.any(String), captures: ['0000000000001-aaaaaaaaaaaa'], artifact_records: [] },
    ]);
    const [c, d] = [new MemBackend(), new MemBackend()];
    const records = await file(c, { invocationId: 'inv-1', artifacts: ['manifest'] });
    // No progress callback: a transfer reports progress only to one who asks.
    expect(await transferArchive(c, d)).toMatchObject({ artifactRecords: 1, captures: 1 });
    expect((await journalEntries(d)).map((e) => e.artifact_records)).toEqual([
      [{ invocation_id: 'inv-1', artifact: 'manifest', sha256: records.manifest!.sha256 }],
    ]);
  });

  it('names captures and records in key order, however the source lists them or answers', async () => {
    const a = new MemBackend();
    await file(a, { invocationId: 'inv-1', capturedAt: '2026-01-02T04:00:00.000Z' });
    await file(a, { invocationId: 'inv-2', capturedAt: '2026-01-02T05:00:00.000Z' });
    const b = new MemBackend();
    await transferArchive(scrambled(a), b, undefined, now);
    const [entry] = await journalEntries(b);
    const keysOf = async (prefix: string): Promise<string[]> => (await a.list(prefix)).map((k) => k.key).sort();
    expect(entry!.captures.map((id) => `records/captures/${id}.json`)).toEqual(await keysOf('records/captures/'));
    expect(entry!.artifact_records.map((r) => `records/invocations/${r.invocation_id}/${r.artifact}-${r.sha256}.json`)).toEqual(
      await keysOf('records/invocations/'),
    );
  });

  it('copies only records (.json), and not one that vanished from the source once listed', async () => {
    const a = new MemBackend();
    const first = await file(a, { invocationId: 'inv-1', capturedAt: '2026-01-02T04:00:00.000Z' });
    await file(a, { invocationId: 'inv-2', capturedAt: '2026-01-02T05:00:00.000Z' });
    await a.putIfAbsent('records/invocations/inv-1/manifest-x.json.tmp', Buffer.from('{'));
    await a.putIfAbsent('records/captures/c.json.tmp', Buffer.from('{'));
    const [capture1, capture2] = (await a.list('records/captures/'))
      .map((k) => k.key)
      .filter((k) => k.endsWith('.json'))
      .sort();
    const manifest1 = `records/invocations/inv-1/manifest-${first.manifest!.sha256}.json`;
    const b = new MemBackend();
    const report = await transferArchive(vanishing(a, [capture1!, manifest1]), b, undefined, now);
    expect(report.artifactRecords).toBe(3);
    const copied = (await b.list('records/'))
      .map((k) => k.key)
      .filter((k) => !k.startsWith('records/journal/'))
      .sort();
    const expected = (await a.list('records/'))
      .map((k) => k.key)
      .filter((k) => k.endsWith('.json') && k !== capture1 && k !== manifest1)
      .sort();
    expect(copied).toEqual(expected);
    expect(copied).toContain(capture2);
  });

  it('creates a branch whose ref vanished from the source once listed, with the head it had', async () => {
    const a = new MemBackend();
    await capture(a, '0000000000001-aaaaaaaaaaaa', 'main');
    await capture(a, '0000000000002-aaaaaaaaaaaa', 'other');
    const b = new MemBackend();
    await transferArchive(vanishing(a, ['refs/branches/other'], 1), b, undefined, now);
    expect(await head(b, 'main')).toBe('0000000000001-aaaaaaaaaaaa');
    expect(await head(b, 'other')).toBe('0000000000002-aaaaaaaaaaaa');
  });
});

describe('forgets across a transfer', () => {
  // An archive as `push` finds one: formatted (transfer copies records and objects, not the format file).
  const formatted = async (): Promise<MemBackend> => {
    const backend = new MemBackend();
    await backend.putIfAbsent('FORMAT', Buffer.from('dbtattic-archive 1\n'));
    return backend;
  };
  const invocations = async (backend: Backend): Promise<string[]> =>
    [...new Set((await backend.list('records/invocations/')).map((k) => k.key.split('/')[2]!))].sort();

  it('makes on the target a forget the source made, and copies nothing of its invocations', async () => {
    const [a, b] = [await formatted(), await formatted()];
    for (const [i, id] of ['inv-1', 'inv-2', 'inv-3'].entries()) await file(a, { invocationId: id, capturedAt: `2026-01-02T0${i + 4}:00:00.000Z` });
    await transferArchive(a, b, undefined, now);
    await applyForget(a, ['inv-1'], 'test', now);
    await file(a, { invocationId: 'inv-4', capturedAt: '2026-01-02T08:00:00.000Z' });
    expect(await transferArchive(a, b, undefined, now)).toMatchObject({ forgets: 1, artifactRecords: 2 });
    expect(await invocations(b)).toEqual(['inv-2', 'inv-3', 'inv-4']);
    expect((await b.list('records/forgotten/')).map((k) => k.key)).toEqual((await a.list('records/forgotten/')).map((k) => k.key));
    expect((await verifyArchive(b)).problems).toEqual([]);
    // Once made, it is not made again.
    expect(await transferArchive(a, b, undefined, now)).toMatchObject({ forgets: 0, artifactRecords: 0 });
  });

  it('never copies back what the target forgot, and a fresh copy of a source that forgot verifies', async () => {
    const [a, b] = [await formatted(), await formatted()];
    for (const [i, id] of ['inv-1', 'inv-2'].entries()) await file(a, { invocationId: id, capturedAt: `2026-01-02T0${i + 4}:00:00.000Z` });
    await transferArchive(a, b, undefined, now);
    await applyForget(b, ['inv-1'], 'test', now);
    await transferArchive(a, b, undefined, now);
    expect(await invocations(b)).toEqual(['inv-2']);
    // The other way, the forget is made on a.
    expect(await transferArchive(b, a, undefined, now)).toMatchObject({ forgets: 1 });
    expect(await invocations(a)).toEqual(['inv-2']);
    const fresh = await formatted();
    await transferArchive(a, fresh, undefined, now);
    expect(await invocations(fresh)).toEqual(['inv-2']);
    expect((await verifyArchive(fresh)).problems).toEqual([]);
  });
});
