import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readPlanFacts } from '../../../src/store/read/plan-facts.js';
import { buildCorpusStore, type CorpusStore } from '../../helpers/corpus-store.js';
import { syntheticManifest, syntheticRunResults } from '../../helpers/synthetic-artifacts.js';

/**
 * plan says "config or contract changed" only when the config the user wrote changed: the same
 * config written by another dbt (keys in another order, Jinja's True as true, an unenforced
 * contract spelled out) is the same config key; a real edit is not.
 */
const dirs: string[] = [];
function target(id: string, unrendered: Record<string, unknown>, contract: unknown): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'attic-config-key-'));
  dirs.push(dir);
  const inv = { invocationId: id, generatedAt: `2026-01-0${dirs.length}T00:00:00.000000Z` };
  const manifest = JSON.parse(syntheticManifest(inv)) as { nodes: Record<string, Record<string, unknown>> };
  Object.assign(manifest.nodes['model.synthetic.m0']!, { unrendered_config: unrendered, contract, config: { materialized: unrendered.materialized } });
  writeFileSync(path.join(dir, 'manifest.json'), JSON.stringify(manifest));
  writeFileSync(path.join(dir, 'run_results.json'), syntheticRunResults(inv));
  return dir;
}

const IDS = ['c0000000-0000-4000-8000-000000000001', 'c0000000-0000-4000-8000-000000000002', 'c0000000-0000-4000-8000-000000000003'];

describe('the config key plan tells config changes by', () => {
  let store: CorpusStore;
  beforeAll(async () => {
    store = await buildCorpusStore([
      target(IDS[0]!, { materialized: 'table', enabled: "var('on', True)" }, null),
      target(IDS[1]!, { enabled: "var('on', true)", materialized: 'table' }, { enforced: false, alias_types: true }),
      target(IDS[2]!, { enabled: "var('on', true)", materialized: 'incremental' }, null),
    ]);
  });
  afterAll(() => {
    store?.close();
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });
  const keyOf = async (id: string): Promise<string | null> =>
    (await readPlanFacts(store.db.connection, { invocationId: id, deferTo: null })).nodes.find((n) => n.uniqueId === 'model.synthetic.m0')!.configKey;

  it('is the same for the same config written another way', async () => {
    expect(await keyOf(IDS[1]!)).toBe(await keyOf(IDS[0]!));
  });

  it('differs when the materialization was edited', async () => {
    expect(await keyOf(IDS[2]!)).not.toBe(await keyOf(IDS[1]!));
  });
});
