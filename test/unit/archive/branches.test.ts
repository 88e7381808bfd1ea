import { describe, expect, it } from 'vitest';
import { MemBackend } from '../../../src/archive/backends/mem.js';
import { advanceBranch, createBranch, deleteBranch, listBranches, readBranch } from '../../../src/archive/index.js';
import { isAtticError } from '../../../src/errors.js';

/**
 * Branches as docs/archive-format.md lays them out: refs/branches/<name> changed by
 * compare-and-swap, or, on storage without it, immutable head entries
 * refs/branch-heads/<name>/<capture_id> whose newest is the head.
 */
const NOW = new Date('2026-01-02T03:04:05.000Z');

/** Storage that ignores conditional writes: branches fall back to head entries. */
class NoSwapBackend extends MemBackend {
  override readonly capabilities = { createOnly: true, compareAndSwap: false };
}

async function refusal(work: Promise<unknown>): Promise<{ code: string; message: string }> {
  try {
    await work;
  } catch (error) {
    if (isAtticError(error)) return { code: error.code, message: error.message };
    throw error;
  }
  throw new Error('expected a refusal');
}

const refJson = async (backend: MemBackend, name: string): Promise<unknown> =>
  JSON.parse((await backend.get(`refs/branches/${name}`))?.toString('utf8') ?? 'null');

describe('branches with compare-and-swap', () => {
  it('are created once, starting at their base, and refused a second time', async () => {
    const backend = new MemBackend();
    const base = { invocation_id: 'inv-base', branch: 'main' };
    const created = await createBranch(backend, 'feature', base, NOW);
    const expected = { name: 'feature', head_capture_id: null, head_invocation_id: 'inv-base', base, created_at: NOW.toISOString() };
    expect(created).toEqual(expected);
    expect(await refJson(backend, 'feature')).toEqual(expected);
    expect(await refusal(createBranch(backend, 'feature', null, NOW))).toEqual({
      code: 'usage',
      message: "Branch 'feature' exists already. Pick another name.",
    });
    expect(await createBranch(backend, 'bare', null, NOW)).toMatchObject({ head_invocation_id: null, base: null });
  });

  it('move their head forward only, keeping the invocation when the capture names none', async () => {
    const backend = new MemBackend();
    await advanceBranch(backend, 'main', '0002', 'inv-2', NOW);
    expect(await refJson(backend, 'main')).toEqual({
      name: 'main',
      head_capture_id: '0002',
      head_invocation_id: 'inv-2',
      base: null,
      created_at: NOW.toISOString(),
    });
    await advanceBranch(backend, 'main', '0002', 'inv-other', NOW);
    await advanceBranch(backend, 'main', '0001', 'inv-1', NOW);
    expect(await readBranch(backend, 'main')).toMatchObject({ head_capture_id: '0002', head_invocation_id: 'inv-2' });
    await advanceBranch(backend, 'main', '0003', null, new Date('2027-01-01T00:00:00Z'));
    expect(await readBranch(backend, 'main')).toEqual({
      name: 'main',
      head_capture_id: '0003',
      head_invocation_id: 'inv-2',
      base: null,
      created_at: NOW.toISOString(),
    });
    expect(await refusal(advanceBranch(backend, '-bad', '0004', null, NOW))).toMatchObject({ code: 'usage' });
  });

  it('are deleted with their ref, returning what they held; deleting one that is not there is refused', async () => {
    const backend = new MemBackend();
    await advanceBranch(backend, 'gone', '0001', 'inv-1', NOW);
    expect(await deleteBranch(backend, 'gone')).toMatchObject({ name: 'gone', head_capture_id: '0001' });
    expect(await backend.get('refs/branches/gone')).toBeUndefined();
    expect(await readBranch(backend, 'gone')).toBeNull();
    expect(await refusal(deleteBranch(backend, 'gone'))).toEqual({ code: 'not-found', message: "No branch 'gone'. See dbtattic branch list." });
  });

  it('call a ref that is not a branch damage, quoting its start', async () => {
    const backend = new MemBackend();
    await backend.putIfAbsent('refs/branches/main', Buffer.from('{"head": 1}'));
    await backend.putIfAbsent('refs/branches/other', Buffer.from('not json'));
    expect(await refusal(readBranch(backend, 'main'))).toEqual({
      code: 'archive-damaged',
      message: 'A branch ref is unreadable: {"head": 1}. Run \'dbtattic verify --repair\' to write it again from the capture records.',
    });
    expect(await refusal(readBranch(backend, 'other'))).toMatchObject({ code: 'archive-damaged' });
    await backend.putIfAbsent('refs/branches/long', Buffer.from(`[${'1,'.repeat(60)}1]`));
    expect((await refusal(readBranch(backend, 'long'))).message).toBe(
      `A branch ref is unreadable: [${'1,'.repeat(39)}1. Run 'dbtattic verify --repair' to write it again from the capture records.`,
    );
  });

  it('leave out of a listing a branch deleted while it was being listed', async () => {
    const backend = new MemBackend();
    await advanceBranch(backend, 'kept', '0001', 'inv-1', NOW);
    await advanceBranch(backend, 'deleted', '0001', 'inv-1', NOW);
    const racing = Object.assign(Object.create(backend) as MemBackend, {
      get: async (key: string) => (key === 'refs/branches/deleted' ? undefined : backend.get(key)),
    });
    expect((await listBranches(racing)).map((b) => b.name)).toEqual(['kept']);
  });
});

describe('branches without compare-and-swap', () => {
  it('write one entry per capture, and read the newest as the head', async () => {
    const backend = new NoSwapBackend();
    await advanceBranch(backend, 'main', '0002', 'inv-2', NOW);
    await advanceBranch(backend, 'main', '0001', 'inv-1', NOW);
    expect(JSON.parse((await backend.get('refs/branch-heads/main/0002'))?.toString('utf8') ?? '')).toEqual({
      capture_id: '0002',
      invocation_id: 'inv-2',
      at: NOW.toISOString(),
    });
    expect(await backend.get('refs/branches/main')).toBeUndefined();
    expect(await readBranch(backend, 'main')).toEqual({
      name: 'main',
      head_capture_id: '0002',
      head_invocation_id: 'inv-2',
      base: null,
      created_at: NOW.toISOString(),
    });
    await advanceBranch(backend, 'main', '0003', null, NOW);
    expect(await readBranch(backend, 'main')).toMatchObject({ head_capture_id: '0003', head_invocation_id: null });
  });

  it("merge a created branch's ref with its entries: the newer head wins, the base stays", async () => {
    const backend = new NoSwapBackend();
    const base = { invocation_id: 'inv-base', branch: 'main' };
    await createBranch(backend, 'feature', base, NOW);
    expect(await readBranch(backend, 'feature')).toEqual({
      name: 'feature',
      head_capture_id: null,
      head_invocation_id: 'inv-base',
      base,
      created_at: NOW.toISOString(),
    });
    await advanceBranch(backend, 'feature', '0005', null, new Date('2027-01-01T00:00:00Z'));
    expect(await readBranch(backend, 'feature')).toEqual({
      name: 'feature',
      head_capture_id: '0005',
      head_invocation_id: 'inv-base',
      base,
      created_at: NOW.toISOString(),
    });
    await advanceBranch(backend, 'feature', '0006', 'inv-6', NOW);
    expect(await readBranch(backend, 'feature')).toMatchObject({ head_capture_id: '0006', head_invocation_id: 'inv-6', base });
  });

  it('take a ref whose head is newer than every entry (a store written in both modes)', async () => {
    const backend = new NoSwapBackend();
    await backend.putIfAbsent(
      'refs/branches/main',
      Buffer.from(JSON.stringify({ name: 'main', head_capture_id: '0009', head_invocation_id: 'inv-9', base: null, created_at: 'then' })),
    );
    await advanceBranch(backend, 'main', '0005', 'inv-5', NOW);
    await advanceBranch(backend, 'main', '0009', 'inv-other', NOW);
    expect(await readBranch(backend, 'main')).toMatchObject({ head_capture_id: '0009', head_invocation_id: 'inv-9' });
    await backend.putIfAbsent(
      'refs/branches/older',
      Buffer.from(JSON.stringify({ name: 'older', head_capture_id: '0003', head_invocation_id: 'inv-3', base: null, created_at: 'then' })),
    );
    await advanceBranch(backend, 'older', '0004', 'inv-4', NOW);
    expect(await readBranch(backend, 'older')).toMatchObject({ head_capture_id: '0004', head_invocation_id: 'inv-4' });
  });

  it('refuse a name already taken by a ref or by entries, and refuse deletion', async () => {
    const backend = new NoSwapBackend();
    await createBranch(backend, 'feature', null, NOW);
    await advanceBranch(backend, 'main', '0001', 'inv-1', NOW);
    const taken = (name: string) => ({ code: 'usage', message: `Branch '${name}' exists already. Pick another name.` });
    expect(await refusal(createBranch(backend, 'feature', null, NOW))).toEqual(taken('feature'));
    expect(await refusal(createBranch(backend, 'main', null, NOW))).toEqual(taken('main'));
    expect(await refusal(deleteBranch(backend, 'main'))).toEqual({
      code: 'usage',
      message: "Branch heads in mem: are written once and never removed (no conditional writes), so branch 'main' cannot be deleted there.",
    });
  });

  it('are listed by name from refs and entries alike, once each', async () => {
    const backend = new NoSwapBackend();
    await advanceBranch(backend, 'zeta', '0001', 'inv-1', NOW);
    await advanceBranch(backend, 'release/1.2', '0002', 'inv-2', NOW);
    await advanceBranch(backend, 'release/1.2', '0003', 'inv-3', NOW);
    await createBranch(backend, 'alpha', null, NOW);
    expect((await listBranches(backend)).map((b) => [b.name, b.head_capture_id])).toEqual([
      ['alpha', null],
      ['release/1.2', '0003'],
      ['zeta', '0001'],
    ]);
  });

  it('call an entry that is not JSON damage, naming it', async () => {
    const backend = new NoSwapBackend();
    await backend.putIfAbsent('refs/branch-heads/main/0001', Buffer.from('{"capture'));
    expect(await refusal(readBranch(backend, 'main'))).toEqual({
      code: 'archive-damaged',
      message: "The branch head entry refs/branch-heads/main/0001 is unreadable. Run 'dbtattic verify'.",
    });
  });
});
