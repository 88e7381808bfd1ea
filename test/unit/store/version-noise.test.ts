import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CORPUS_DIR, hasCorpus } from '../../helpers/corpus.js';
import { buildCorpusStore, type CorpusStore } from '../../helpers/corpus-store.js';

/**
 * A dbt upgrade reshapes every node (new config keys with null or empty values, defaults
 * written out, Fusion's explicit quoting): none of that is an edit. Nodes the user left alone,
 * told apart here from the JSON of both manifests (their code, their unrendered config, their
 * relation, their docs are the same), must not be reported as changed, by v_node_changes or diff.
 */
type Node = Record<string, unknown>;
type Manifest = { metadata: { invocation_id: string; dbt_version: string }; nodes: Record<string, Node> };

const read = (dir: string): Manifest => JSON.parse(readFileSync(path.join(CORPUS_DIR, dir, 'manifest.json'), 'utf8')) as Manifest;
const same = (a: unknown, b: unknown): boolean => JSON.stringify(a ?? null) === JSON.stringify(b ?? null);

/** What a user writes for a node, field by field, as both manifests hold it. */
function untouched(a: Node, b: Node): boolean {
  const columnDocs = (n: Node): unknown =>
    Object.entries((n.columns ?? {}) as Record<string, Node>)
      .map(([k, c]) => [k, c.description ?? ''])
      .sort();
  return (
    same(a.raw_code ?? a.raw_sql, b.raw_code ?? b.raw_sql) &&
    same(a.checksum, b.checksum) &&
    same(a.unrendered_config, b.unrendered_config) &&
    same(a.database, b.database) &&
    same(a.schema, b.schema) &&
    same(a.alias, b.alias) &&
    same(a.description, b.description) &&
    same(a.tags, b.tags) &&
    same(a.meta, b.meta) &&
    same(columnDocs(a), columnDocs(b)) &&
    same((a.config as Node).materialized, (b.config as Node).materialized) &&
    same((a.depends_on as Node)?.nodes, (b.depends_on as Node)?.nodes)
  );
}

interface Pair {
  label: string;
  from: string;
  to: string;
  /** What the newer dbt reshaped in config on its own, shown present in the JSON. */
  reshaped: (a: Node, b: Node) => boolean;
}

const PAIRS: Pair[] = [
  {
    label: 'dbt 1.2.1 → 1.3.0 (null and empty keys added: incremental_strategy, packages, docs)',
    from: 'learn-dbt-nigel-snowflake-1.0-to-1.3/target-seq/05_2022-10-14_93b6bb8e',
    to: 'learn-dbt-nigel-snowflake-1.0-to-1.3/target-seq/07_2022-10-14_80b47f73',
    reshaped: (a, b) => !same(a.config, b.config),
  },
  {
    label: "dbt 1.12.2 → Fusion 2.0 (the adapter's default quoting written out)",
    from: 'dbt-bouncer/fixtures-dbt_112/dbt1.12.2_0b713370',
    to: 'dbt-bouncer/fixtures-dbt_20/dbt2.0.0-beta.2_0b713370',
    reshaped: (a, b) => !same((a.config as Node).quoting, (b.config as Node).quoting),
  },
];

describe.skipIf(!hasCorpus).each(PAIRS)('$label', ({ from, to, reshaped }) => {
  let store: CorpusStore;
  const [a, b] = [read(from), read(to)];
  const left = Object.entries(a.nodes)
    .filter(([id, n]) => b.nodes[id] && untouched(n, b.nodes[id]!))
    .map(([id]) => id);
  const noisy = left.filter((id) => reshaped(a.nodes[id]!, b.nodes[id]!));
  beforeAll(async () => {
    store = await buildCorpusStore([from, to].map((dir) => path.join(CORPUS_DIR, dir)));
  });
  afterAll(() => store?.close());

  it('holds nodes the user left alone whose config the newer dbt reshaped', () => {
    expect(a.metadata.dbt_version).not.toBe(b.metadata.dbt_version);
    expect(noisy.length).toBeGreaterThanOrEqual(5);
  });

  it('reports none of them in v_node_changes', async () => {
    const rows = await store.query("SELECT unique_id, what_changed FROM v_node_changes WHERE to_invocation = $1 AND change_kind NOT IN ('added', 'removed')", [
      b.metadata.invocation_id,
    ]);
    expect(rows.filter((r) => left.includes(String(r.unique_id)))).toEqual([]);
  });

  it('lists none of them in diff', async () => {
    const rows = await store.diffNodes(a.metadata.invocation_id, b.metadata.invocation_id);
    expect(rows.filter((r) => left.includes(String(r.unique_id)))).toEqual([]);
  });
});
