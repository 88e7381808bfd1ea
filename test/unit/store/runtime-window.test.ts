import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../../../src/store/index.js';
import { plainResult } from '../../../src/store/db/plain-rows.js';
import { applySchema } from '../../../src/store/schema.js';

/**
 * node_runtime keeps, for the median and the p95 of a node's times, a window of the sorted times
 * around the rank each reads (schema/002-macros.sql, window_*). Held to DuckDB's own aggregates
 * over every time, for random times (ties and all) arriving in random stretches.
 */
describe('runtime windows', () => {
  const root = mkdtempSync(path.join(os.tmpdir(), 'attic-runtime-window-'));
  let db: Database;
  const query = async (sql: string): Promise<Record<string, unknown>[]> => plainResult(await db.connection.runAndReadAll(sql)).rows;

  beforeAll(async () => {
    db = await openDatabase(path.join(root, 'store.duckdb'), 'write');
    await applySchema(db.connection);
  });
  afterAll(() => {
    db.close();
    rmSync(root, { recursive: true, force: true });
  });

  it('read a quantile as quantile_cont does, from every window that holds its ranks', async () => {
    // 3,000 lists of 1 to 80 times, rounded so that ties happen; every window [a, b) of each.
    const rows = await query(`
      WITH list AS (
        SELECT i, list_sort(list(round(random() * 10 ^ (i % 4), (i % 3)::INTEGER))) AS xs, count(*) AS n
        FROM range(3000) AS t(i), range(1 + i % 80) AS u(j) GROUP BY i
      ),
      truth AS (SELECT i, quantile_cont(x, 0.5) AS median_s, quantile_cont(x, 0.95) AS p95_s FROM (SELECT i, unnest(xs) AS x FROM list) GROUP BY i),
      windowed AS (
        SELECT l.i, l.n, {'skip': a, 'times': l.xs[a + 1 : b]} AS w, t.median_s, t.p95_s
        FROM list AS l JOIN truth AS t USING (i), range(0, 80, 7) AS r(a), range(1, 81, 5) AS s(b)
        WHERE a < b AND b <= l.n
      )
      SELECT
        count(*) FILTER (WHERE window_holds(w, n, 0.5)) AS median_held,
        count(*) FILTER (WHERE window_holds(w, n, 0.95)) AS p95_held,
        count(*) FILTER (WHERE window_holds(w, n, 0.5) AND window_quantile(w, n, 0.5) IS DISTINCT FROM median_s) AS median_wrong,
        count(*) FILTER (WHERE window_holds(w, n, 0.95) AND window_quantile(w, n, 0.95) IS DISTINCT FROM p95_s) AS p95_wrong,
        count(*) FILTER (WHERE NOT window_holds(w, n, 0.5) AND window_quantile(w, n, 0.5) IS NOT NULL) AS read_outside
      FROM windowed`);
    expect(rows[0]).toMatchObject({ median_wrong: 0, p95_wrong: 0, read_outside: 0 });
    expect(Number(rows[0]!.median_held)).toBeGreaterThan(10_000);
    expect(Number(rows[0]!.p95_held)).toBeGreaterThan(10_000);
  });

  it('keep the ranks as times arrive in stretches, or say they left, and cut to k times either side', async () => {
    // Each list arrives in stretches of 1 to 9 times: added, then cut to 3 either side, as a
    // merge does; a window that no longer holds a rank is filled again with all times so far.
    await db.connection.run(`
      CREATE TEMP TABLE arrival AS
      SELECT i, j // (1 + i % 9) AS stretch, round(random() * 100 + CASE i % 3 WHEN 0 THEN j WHEN 1 THEN -j ELSE 0 END, 1) AS x
      FROM range(400) AS t(i), range(120) AS u(j)`);
    const stretches = Number((await query('SELECT max(stretch) AS m FROM arrival'))[0]!.m) + 1;
    await db.connection.run('CREATE TEMP TABLE kept (i BIGINT, n BIGINT, w STRUCT(skip BIGINT, times DOUBLE[]))');
    let [left, checked] = [0, 0];
    for (let s = 0; s < stretches; s++) {
      await db.connection.run(`
        CREATE OR REPLACE TEMP TABLE added AS
        SELECT a.i, coalesce(k.n, 0) + count(*) AS n, window_add(any_value(k.w), coalesce(k.n, 0), list(a.x)) AS w
        FROM arrival AS a LEFT JOIN kept AS k USING (i) WHERE a.stretch = ${s} GROUP BY a.i, k.n`);
      left += Number((await query('SELECT count(*) AS c FROM added WHERE NOT window_holds(w, n, 0.5)'))[0]!.c);
      await db.connection.run(`
        UPDATE added SET w = {'skip': 0, 'times': f.xs}
        FROM (SELECT i, list_sort(list(x)) AS xs FROM arrival WHERE stretch <= ${s} GROUP BY i) AS f
        WHERE f.i = added.i AND NOT window_holds(added.w, added.n, 0.5)`);
      const wrong = await query(`
        SELECT count(*) AS checked, count(*) FILTER (WHERE window_quantile(a.w, a.n, 0.5) IS DISTINCT FROM t.m OR len(window_trim(a.w, a.n, 0.5, 3).times) > 8) AS wrong
        FROM added AS a JOIN (SELECT i, quantile_cont(x, 0.5) AS m FROM arrival WHERE stretch <= ${s} GROUP BY i) AS t USING (i)`);
      expect(wrong[0]!.wrong).toBe(0);
      checked += Number(wrong[0]!.checked);
      await db.connection.run(`DELETE FROM kept WHERE i IN (SELECT i FROM added)`);
      await db.connection.run(`INSERT INTO kept SELECT i, n, window_trim(w, n, 0.5, 3) FROM added`);
    }
    expect(checked).toBeGreaterThan(5_000);
    expect(left).toBeGreaterThan(0);
  });
});
