import { afterEach, describe, expect, it, vi } from 'vitest';
import { MemBackend } from '../../../src/archive/backends/mem.js';
import { beginSweep, removeDeadHolders, takeWriterLease } from '../../../src/archive/index.js';
import { LEASE_MS } from '../../../src/archive/prune-guard.js';

/**
 * The clock of the prune guard (docs/archive-format.md): a sweep renews its marker and a writer
 * its lease every 20 s, so either can tell a live holder on another machine from a dead one; a
 * key not renewed for two minutes, or an older dbtattic's lease an hour old, is a dead holder's.
 */
const keysUnder = async (backend: MemBackend, prefix: string): Promise<string[]> => (await backend.list(prefix)).map((k) => k.key).sort();
const elsewhere = (startedAt: number): Buffer =>
  Buffer.from(JSON.stringify({ id: 'x', host: 'another-machine', pid: 1, started_at: new Date(startedAt).toISOString() }));

afterEach(() => {
  vi.useRealTimers();
});

describe('a sweep marker', () => {
  it('is renewed under a new key every 20 s while the sweep runs, and removed when it ends', async () => {
    vi.useFakeTimers({ toFake: ['Date', 'setInterval', 'clearInterval'] });
    const backend = new MemBackend();
    const release = await beginSweep(backend);
    const [first] = await keysUnder(backend, 'locks/sweeps/');
    await vi.advanceTimersByTimeAsync(19_000);
    expect(await keysUnder(backend, 'locks/sweeps/')).toEqual([first]);
    await vi.advanceTimersByTimeAsync(1_000);
    const renewed = await keysUnder(backend, 'locks/sweeps/');
    expect(renewed).toHaveLength(1);
    expect(renewed[0]).not.toBe(first);
    const holder = JSON.parse((await backend.get(renewed[0]!))!.toString('utf8')) as { id: string; started_at: string };
    expect(holder).toMatchObject({ id: renewed[0], started_at: new Date(Date.now()).toISOString() });
    await release();
    await vi.advanceTimersByTimeAsync(40_000);
    expect(await keysUnder(backend, 'locks/sweeps/')).toEqual([]);
  });

  it('of another machine is dead once not renewed for two minutes, not a moment before', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const now = Date.parse('2026-03-01T12:00:00.000Z');
    vi.setSystemTime(now);
    const backend = new MemBackend();
    await backend.putIfAbsent('locks/sweeps/just-live.json', elsewhere(now - 120_000 + 1));
    await backend.putIfAbsent('locks/sweeps/just-dead.json', elsewhere(now - 120_000));
    expect(await removeDeadHolders(backend)).toBe(1);
    expect(await keysUnder(backend, 'locks/sweeps/')).toEqual(['locks/sweeps/just-live.json']);
  });
});

describe("a writer's lease", () => {
  it('is renewed under a new key every 20 s while the writer works, and removed when it is done', async () => {
    vi.useFakeTimers({ toFake: ['Date', 'setInterval', 'clearInterval'] });
    const backend = new MemBackend();
    const release = await takeWriterLease(backend);
    const [first] = await keysUnder(backend, 'locks/writers/');
    await vi.advanceTimersByTimeAsync(20_000);
    const renewed = await keysUnder(backend, 'locks/writers/');
    expect(renewed).toHaveLength(1);
    expect(renewed[0]).not.toBe(first);
    expect(JSON.parse((await backend.get(renewed[0]!))!.toString('utf8'))).toMatchObject({ renewed: true, started_at: new Date(Date.now()).toISOString() });
    await release();
    await vi.advanceTimersByTimeAsync(40_000);
    expect(await keysUnder(backend, 'locks/writers/')).toEqual([]);
  });

  it('renewed, of another machine, is dead once not renewed for two minutes', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const now = Date.parse('2026-03-01T12:00:00.000Z');
    vi.setSystemTime(now);
    const backend = new MemBackend();
    const renewedAt = (at: number): Buffer => Buffer.from(JSON.stringify({ ...JSON.parse(elsewhere(at).toString('utf8')), renewed: true }));
    await backend.putIfAbsent('locks/writers/just-live.json', renewedAt(now - 120_000 + 1));
    await backend.putIfAbsent('locks/writers/just-dead.json', renewedAt(now - 120_000));
    expect(await removeDeadHolders(backend)).toBe(1);
    expect(await keysUnder(backend, 'locks/writers/')).toEqual(['locks/writers/just-live.json']);
  });
});

describe("a writer's lease of another machine, from a dbtattic that did not renew leases", () => {
  it('is dead once it is an hour old', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const now = Date.parse('2026-03-01T12:00:00.000Z');
    vi.setSystemTime(now);
    const backend = new MemBackend();
    await backend.putIfAbsent('locks/writers/an-hour-old.json', elsewhere(now - LEASE_MS));
    // No live writer: the sweep begins without waiting, and ends leaving no marker.
    await (await beginSweep(backend))();
    expect(await keysUnder(backend, 'locks/sweeps/')).toEqual([]);
  });
});
