import { mkdtempSync, rmSync, utimesSync, writeFileSync, mkdirSync } from 'node:fs';
import os, { hostname } from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { afterAll, describe, expect, it } from 'vitest';
import { MemBackend } from '../../../src/archive/backends/mem.js';
import { syncStore } from '../../../src/store/index.js';
import { markWaiting, readersWaiting } from '../../../src/store/db/waiting-readers.js';
import { file } from '../../helpers/archive-builder.js';

/**
 * Captures that follow each other at once could keep a reader out for its whole wait: a reader
 * that found the store taken marks itself waiting, and a capture's catch-up then gives way.
 */
const dir = mkdtempSync(path.join(os.tmpdir(), 'dbtattic-waiting-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const deadPid = spawnSync('true').pid!;

describe('a reader waiting for the store', () => {
  it("makes a capture's catch-up give way until it is done", async () => {
    const backend = new MemBackend();
    await backend.putIfAbsent('FORMAT', Buffer.from('dbtattic-archive 1\n'));
    await file(backend, { invocationId: 'inv-1' });
    const store = path.join(dir, 'store.duckdb');
    const done = markWaiting(store);
    expect(readersWaiting(store)).toBe(true);
    expect(await syncStore(backend, store, 'skip')).toEqual({ status: 'busy' });
    // A reader's own catch-up, and anyone who waits, still go ahead.
    expect(await syncStore(backend, store, 'once')).toMatchObject({ status: 'synced' });
    done();
    expect(readersWaiting(store)).toBe(false);
    await file(backend, { invocationId: 'inv-2', capturedAt: '2026-01-02T05:00:00.000Z' });
    expect(await syncStore(backend, store, 'skip')).toMatchObject({ status: 'synced', invocations: 1 });
  });

  it('is not one when its process is gone, or its mark from another machine is stale', () => {
    const store = path.join(dir, 'other.duckdb');
    mkdirSync(`${store}.readers`, { recursive: true });
    writeFileSync(path.join(`${store}.readers`, `${deadPid}~${hostname()}~aaaa`), '');
    const elsewhere = path.join(`${store}.readers`, '1~another-machine~bbbb');
    writeFileSync(elsewhere, '');
    expect(readersWaiting(store)).toBe(true);
    const old = new Date(Date.now() - 60_000);
    utimesSync(elsewhere, old, old);
    expect(readersWaiting(store)).toBe(false);
  });
});
