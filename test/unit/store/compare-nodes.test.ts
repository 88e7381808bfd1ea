import { afterAll, beforeAll, expect, it } from 'vitest';
import { compareNodes } from '../../../src/store/index.js';
import { copyNodeRows } from '../../helpers/node-rows.js';
import { buildFixtureStore, type FixtureStore } from './fixture-store.js';

/**
 * diff and inspect classify only the nodes that may have changed between two manifests (another
 * version, fingerprint, called macro or compiled SQL); these are the cases where a node changes
 * with none of those. The second invocation is the first's manifest again, an hour later, made
 * by editing the store's rows in a transaction that is rolled back.
 */
let fx: FixtureStore;
beforeAll(async () => {
  fx = await buildFixtureStore();
});
afterAll(() => fx?.close());

type Manifest = Record<string, Record<string, { config?: { enabled?: boolean } }> | undefined>;

/** Every enabled entry of a manifest but macros: what the store keeps as nodes. */
function enabledNodes(manifest: Manifest): string[] {
  const sections = ['nodes', 'sources', 'exposures', 'metrics', 'semantic_models', 'saved_queries', 'unit_tests', 'groups', 'docs', 'functions'];
  return sections
    .flatMap((s) =>
      Object.entries(manifest[s] ?? {})
        .filter(([, n]) => n.config?.enabled !== false)
        .map(([id]) => id),
    )
    .sort();
}

it('names every node the other adapter quotes otherwise a relation change, when nothing else differs', async () => {
  const first = fx.steps.find((s) => s.step === 1)!;
  const manifest = fx.written<Manifest>(first, 'manifest.json')!;
  const again = 'b0000000-0000-4000-8000-0000000ada97';
  const rows = await fx.withEdits(async () => {
    const params = [first.invocation_id, again];
    // Snowflake quotes no part of a relation by default, DuckDB (the fixture's adapter) all three.
    await fx.db.connection.run(
      `INSERT INTO invocation SELECT * REPLACE ($2::VARCHAR AS invocation_id, 'snowflake' AS adapter_type,
      generated_at + INTERVAL 1 HOUR AS generated_at) FROM invocation WHERE invocation_id = $1`,
      params,
    );
    await fx.db.connection.run(
      'INSERT INTO macro_invocation SELECT * REPLACE ($2::VARCHAR AS invocation_id) FROM macro_invocation WHERE invocation_id = $1',
      params,
    );
    await copyNodeRows(fx.db.connection, first.invocation_id, again);
    return compareNodes(fx.db.connection, first.invocation_id, again);
  });
  expect(rows.map((r) => r.unique_id).sort()).toEqual(enabledNodes(manifest));
  expect(new Set(rows.map((r) => `${String(r.change)} ${JSON.stringify(r.aspects)}`))).toEqual(new Set(['relation ["relation"]']));
});
