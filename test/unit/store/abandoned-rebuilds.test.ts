import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import os, { hostname } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { rebuildFileOf, removeAbandonedRebuilds } from '../../../src/store/db/store-file.js';

/**
 * A rebuild or compaction killed midway leaves its new store beside the old one (up to twice its
 * size): a later one removes what a dead process on this machine left at once, and anything
 * else only once untouched for an hour.
 */
const dir = mkdtempSync(path.join(os.tmpdir(), 'dbtattic-rebuilds-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const deadPid = spawnSync('true').pid!;

describe('files a killed rebuild left', () => {
  it("go at once when their process is gone; a live one's, another machine's and unnamed ones wait an hour", () => {
    const store = path.join(dir, 'store.duckdb');
    const mine = path.basename(rebuildFileOf(store));
    expect(mine).toMatch(new RegExp(`^store\\.duckdb\\.rebuild-[0-9a-f]{8}~${process.pid}~${hostname()}~$`));
    const names = {
      dead: `store.duckdb.rebuild-aaaaaaaa~${deadPid}~${hostname()}~`,
      deadWal: `store.duckdb.rebuild-aaaaaaaa~${deadPid}~${hostname()}~.wal`,
      deadCompacted: `store.duckdb.rebuild-bbbbbbbb~${deadPid}~${hostname()}~-compacted`,
      live: mine,
      elsewhere: `store.duckdb.rebuild-cccccccc~${deadPid}~another-machine~`,
      unnamed: 'store.duckdb.rebuild-dddddddd',
      unnamedOld: 'store.duckdb.rebuild-eeeeeeee',
    };
    for (const name of Object.values(names)) writeFileSync(path.join(dir, name), '');
    const twoHoursAgo = new Date(Date.now() - 2 * 3_600_000);
    utimesSync(path.join(dir, names.unnamedOld), twoHoursAgo, twoHoursAgo);
    return removeAbandonedRebuilds(store).then(() => {
      expect(readdirSync(dir).sort()).toEqual([names.elsewhere, names.live, names.unnamed].sort());
    });
  });
});
