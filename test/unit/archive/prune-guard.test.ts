import { spawnSync } from 'node:child_process';
import { hostname } from 'node:os';
import { describe, expect, it } from 'vitest';
import { MemBackend } from '../../../src/archive/backends/mem.js';
import { beginSweep, removeDeadHolders, takeWriterLease, withWriterLease } from '../../../src/archive/index.js';

/**
 * Writer leases and sweep markers (docs/archive-format.md: locks/writers/, locks/sweeps/): a
 * writer steps back while a live prune sweeps, a prune waits for live writers, and the keys of
 * a holder that died are ignored (same machine: its process is gone; another machine: its key
 * is older than an hour for a writer, two minutes for a sweep).
 */
const deadPid = spawnSync('true').pid!;
const minutesAgo = (minutes: number): string => new Date(Date.now() - minutes * 60_000).toISOString();
const holder = (host: string, pid: number, startedAt = new Date().toISOString(), processId?: string): Buffer =>
  Buffer.from(JSON.stringify({ id: 'x', host, pid, started_at: startedAt, ...(processId ? { process: processId } : {}) }));
/** What a key says of a process that had this pid before (a killed dbtattic whose pid came round again). */
const ANOTHER_PROCESS = 'boot/another-start';
const keysUnder = async (backend: MemBackend, prefix: string): Promise<string[]> => (await backend.list(prefix)).map((k) => k.key).sort();

/** Whether `promise` is still pending after the others had a chance to run (a few polls). */
async function pending(promise: Promise<unknown>): Promise<boolean> {
  const marker = Symbol('pending');
  return (await Promise.race([promise, new Promise((resolve) => setTimeout(() => resolve(marker), 350))])) === marker;
}

describe('a writer lease', () => {
  it('is taken on the first look at an object, not at a record, and dropped however the write ends', async () => {
    const backend = new MemBackend();
    let leases: string[] = [];
    await expect(
      withWriterLease(backend, async (guarded) => {
        expect(guarded.location).toBe('mem:');
        expect(guarded.capabilities).toEqual(backend.capabilities);
        await guarded.putIfAbsent('records/captures/c.json', Buffer.from('{}'));
        await guarded.get('records/captures/c.json');
        expect(await keysUnder(backend, 'locks/')).toEqual([]);
        await guarded.has('chunks/ab/abcd');
        leases = await keysUnder(backend, 'locks/writers/');
        await guarded.putIfAbsent('files/ab/abcd', Buffer.from('x'));
        throw new Error('the write failed');
      }),
    ).rejects.toThrow('the write failed');
    expect(leases).toHaveLength(1);
    expect(leases[0]).toMatch(/^locks\/writers\/[0-9a-f]{13}-[0-9a-f]{12}\.json$/);
    expect(await keysUnder(backend, 'locks/')).toEqual([]);
  });

  it('names its holder: this machine, this process, when it started', async () => {
    const backend = new MemBackend();
    const release = await takeWriterLease(backend);
    const [key] = await keysUnder(backend, 'locks/writers/');
    const written = JSON.parse((await backend.get(key!))!.toString('utf8')) as Record<string, unknown>;
    expect(written).toEqual({
      id: key,
      host: hostname(),
      pid: process.pid,
      started_at: expect.any(String),
      renewed: true,
      ...(process.platform === 'linux' ? { process: expect.any(String) } : {}),
    });
    expect(Math.abs(Date.parse(written.started_at as string) - Date.now())).toBeLessThan(60_000);
    await release();
    expect(await keysUnder(backend, 'locks/')).toEqual([]);
  });

  it('steps back while a live sweep runs, saying so once, and is taken when the sweep is over', async () => {
    const backend = new MemBackend();
    await backend.putIfAbsent('locks/sweeps/live.json', holder(hostname(), process.pid));
    const notes: string[] = [];
    const lease = takeWriterLease(backend, (what) => notes.push(what));
    expect(await pending(lease)).toBe(true);
    expect(await keysUnder(backend, 'locks/writers/')).toEqual([]);
    expect(notes).toEqual(['a prune is deleting objects; waiting for it to finish']);
    await backend.delete('locks/sweeps/live.json');
    const release = await lease;
    expect(await keysUnder(backend, 'locks/writers/')).toHaveLength(1);
    await release();
  });

  it('says so once, even when another sweep has begun by the time the first is over', async () => {
    const backend = new MemBackend();
    await backend.putIfAbsent('locks/sweeps/first.json', holder(hostname(), process.pid));
    let leasesWritten = 0;
    const racing = new Proxy(backend, {
      get(target, prop, receiver) {
        if (prop === 'putIfAbsent') {
          return async (key: string, data: Uint8Array) => {
            // A second prune marks its sweep just before the writer steps in again.
            if (key.startsWith('locks/writers/') && ++leasesWritten === 2)
              await target.putIfAbsent('locks/sweeps/second.json', holder(hostname(), process.pid));
            return target.putIfAbsent(key, data);
          };
        }
        const value = Reflect.get(target, prop, receiver) as unknown;
        return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
      },
    });
    const notes: string[] = [];
    const lease = takeWriterLease(racing, (what) => notes.push(what));
    expect(await pending(lease)).toBe(true);
    await backend.delete('locks/sweeps/first.json');
    expect(await pending(lease)).toBe(true);
    expect(leasesWritten).toBe(2);
    expect(await keysUnder(backend, 'locks/writers/')).toEqual([]);
    await backend.delete('locks/sweeps/second.json');
    await (await lease)();
    expect(notes).toEqual(['a prune is deleting objects; waiting for it to finish']);
  });

  it('is taken on a first look at a file index too, and deletes go through to storage', async () => {
    const backend = new MemBackend();
    await backend.putIfAbsent('files/ab/abcd', Buffer.from('x'));
    await withWriterLease(backend, async (guarded) => {
      expect((await guarded.get('files/ab/abcd'))?.toString()).toBe('x');
      expect(await keysUnder(backend, 'locks/writers/')).toHaveLength(1);
      await guarded.delete('files/ab/abcd');
    });
    expect(await backend.has('files/ab/abcd')).toBe(false);
    expect(await keysUnder(backend, 'locks/')).toEqual([]);
  });

  it('ignores the marker of a dead prune, and one that is not a holder', async () => {
    const backend = new MemBackend();
    await backend.putIfAbsent('locks/sweeps/dead-here.json', holder(hostname(), deadPid));
    await backend.putIfAbsent('locks/sweeps/stale-elsewhere.json', holder('another-machine', 1, minutesAgo(3)));
    await backend.putIfAbsent('locks/sweeps/not-json.json', Buffer.from('{"host":'));
    const notes: string[] = [];
    const release = await takeWriterLease(backend, (what) => notes.push(what));
    expect(notes).toEqual([]);
    await release();
  });

  it('waits for a prune on another machine whose marker is recent', async () => {
    const backend = new MemBackend();
    await backend.putIfAbsent('locks/sweeps/elsewhere.json', holder('another-machine', 1, minutesAgo(1)));
    const lease = takeWriterLease(backend);
    expect(await pending(lease)).toBe(true);
    await backend.delete('locks/sweeps/elsewhere.json');
    await (await lease)();
  });
});

describe('a sweep', () => {
  it('waits for live writers, saying how many, then marks its sweep until released', async () => {
    const backend = new MemBackend();
    await backend.putIfAbsent('locks/writers/live.json', holder(hostname(), process.pid));
    await backend.putIfAbsent('locks/writers/elsewhere.json', holder('another-machine', 1, minutesAgo(59)));
    await backend.putIfAbsent('locks/writers/dead-here.json', holder(hostname(), deadPid));
    await backend.putIfAbsent('locks/writers/stale-elsewhere.json', holder('another-machine', 1, minutesAgo(61)));
    const notes: string[] = [];
    const sweep = beginSweep(backend, (what) => notes.push(what));
    expect(await pending(sweep)).toBe(true);
    expect(notes).toEqual(['waiting for 2 capture(s) at work to finish']);
    const [marker] = await keysUnder(backend, 'locks/sweeps/');
    expect(marker).toMatch(/^locks\/sweeps\/[0-9a-f]{13}-[0-9a-f]{12}\.json$/);
    await backend.delete('locks/writers/live.json');
    expect(await pending(sweep)).toBe(true);
    await backend.delete('locks/writers/elsewhere.json');
    const release = await sweep;
    expect(await keysUnder(backend, 'locks/sweeps/')).toEqual([marker]);
    await release();
    expect(await keysUnder(backend, 'locks/sweeps/')).toEqual([]);
  });

  it('waits for a live writer without anyone to tell', async () => {
    const backend = new MemBackend();
    await backend.putIfAbsent('locks/writers/live.json', holder(hostname(), process.pid));
    const sweep = beginSweep(backend);
    expect(await pending(sweep)).toBe(true);
    await backend.delete('locks/writers/live.json');
    await (await sweep)();
  });

  it('starts at once with no writer at work, saying nothing', async () => {
    const backend = new MemBackend();
    const notes: string[] = [];
    await (await beginSweep(backend, (what) => notes.push(what)))();
    expect(notes).toEqual([]);
  });

  it('left by a killed prune is removed by the next, and a live one is kept', async () => {
    const backend = new MemBackend();
    await backend.putIfAbsent('locks/sweeps/live.json', holder(hostname(), process.pid));
    await backend.putIfAbsent('locks/sweeps/recent-elsewhere.json', holder('another-machine', 1, minutesAgo(1)));
    await backend.putIfAbsent('locks/sweeps/dead-here.json', holder(hostname(), deadPid));
    await backend.putIfAbsent('locks/sweeps/stale-elsewhere.json', holder('another-machine', 1, minutesAgo(3)));
    expect(await removeDeadHolders(backend)).toBe(2);
    expect(await keysUnder(backend, 'locks/sweeps/')).toEqual(['locks/sweeps/live.json', 'locks/sweeps/recent-elsewhere.json']);
  });
});

describe('a pid that came round again (a container runs every job with the same few pids)', () => {
  it("is not a killed writer's: its lease holds a prune only until it grows stale (two minutes unrenewed), and the next prune removes it", async () => {
    const backend = new MemBackend();
    await backend.putIfAbsent('locks/writers/reused-stale.json', holder(hostname(), process.pid, minutesAgo(61), ANOTHER_PROCESS));
    await backend.putIfAbsent('locks/writers/dead-here.json', holder(hostname(), deadPid));
    await backend.putIfAbsent('locks/writers/reused-recent.json', holder(hostname(), process.pid, minutesAgo(1), ANOTHER_PROCESS));
    const renewedBy = { id: 'x', host: hostname(), pid: process.pid, process: ANOTHER_PROCESS, renewed: true };
    await backend.putIfAbsent('locks/writers/reused-renewed.json', Buffer.from(JSON.stringify({ ...renewedBy, started_at: minutesAgo(3) })));
    expect(await removeDeadHolders(backend)).toBe(3);
    expect(await keysUnder(backend, 'locks/writers/')).toEqual(['locks/writers/reused-recent.json']);
    const sweep = beginSweep(backend);
    expect(await pending(sweep)).toBe(true);
    await backend.delete('locks/writers/reused-recent.json');
    await (await sweep)();
  });

  it("is not a killed prune's: a sweep marker not renewed for two minutes holds no capture", async () => {
    const backend = new MemBackend();
    await backend.putIfAbsent('locks/sweeps/reused.json', holder(hostname(), process.pid, minutesAgo(3), ANOTHER_PROCESS));
    await backend.putIfAbsent('locks/sweeps/old-format.json', holder(hostname(), process.pid, minutesAgo(3)));
    const notes: string[] = [];
    await (await takeWriterLease(backend, (what) => notes.push(what)))();
    expect(notes).toEqual([]);
  });

  it('the process that wrote a key is told apart from a later one with its pid (Linux)', async () => {
    const backend = new MemBackend();
    const release = await takeWriterLease(backend);
    const [key] = await keysUnder(backend, 'locks/writers/');
    const written = JSON.parse((await backend.get(key!))!.toString('utf8')) as { process?: string };
    if (process.platform === 'linux') expect(written.process).toMatch(/^[0-9a-f-]{36}\/\d+$/);
    await release();
  });
});
