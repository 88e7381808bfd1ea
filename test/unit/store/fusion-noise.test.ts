import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CORPUS_DIR, hasCorpus } from '../../helpers/corpus.js';
import { buildCorpusStore, type CorpusStore } from '../../helpers/corpus-store.js';

/**
 * One commit of one project (dbt-bouncer 0b713370), parsed by dbt 1.12.2 and by dbt Fusion 2.0:
 * the same code, so what differs between the two manifests in the ways below is the engine
 * writing it, never an edit. Each case finds, from the JSON of both manifests alone, the nodes
 * whose field differs only in that way, and checks that no change of that aspect is reported.
 */
type Node = Record<string, unknown>;
type Manifest = { metadata: { invocation_id: string }; nodes: Record<string, Node>; sources: Record<string, Node>; docs: Record<string, Node> };

const FROM = 'dbt-bouncer/fixtures-dbt_112/dbt1.12.2_0b713370';
const TO = 'dbt-bouncer/fixtures-dbt_20/dbt2.0.0-beta.2_0b713370';
const read = (dir: string): Manifest => JSON.parse(readFileSync(path.join(CORPUS_DIR, dir, 'manifest.json'), 'utf8')) as Manifest;

/** JSON with object keys sorted, so key order is no difference. */
function sorted(value: unknown): string {
  return JSON.stringify(value ?? null, (_key, v: unknown) =>
    v && typeof v === 'object' && !Array.isArray(v) ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => a.localeCompare(b))) : v,
  );
}
const record = (value: unknown): Node => (value && typeof value === 'object' ? (value as Node) : {});

interface Case {
  aspect: string;
  /** The field differs between the manifests, and only in the way this case names. */
  onlyNoise: (a: Node, b: Node) => boolean;
}

const CASES: Record<string, Case> = {
  'Jinja literals written True in 1.12 and true in Fusion (unrendered config)': {
    aspect: 'unrendered_config',
    onlyNoise: (a, b) =>
      sorted(a.unrendered_config) !== sorted(b.unrendered_config) &&
      sorted(a.unrendered_config)
        .replace(/\bTrue\b/g, 'true')
        .replace(/\bFalse\b/g, 'false')
        .replace(/\bNone\b/g, 'none') === sorted(b.unrendered_config),
  },
  "a seed's materialization, written by 1.12 and left out by Fusion": {
    aspect: 'materialization',
    onlyNoise: (a, b) => a.resource_type === 'seed' && record(a.config).materialized === 'seed' && record(b.config).materialized === undefined,
  },
  'an enforced contract with the same settings, written in another key order, with or without its checksum': {
    aspect: 'contract',
    onlyNoise: (a, b) =>
      record(a.contract).enforced === true &&
      JSON.stringify(a.contract) !== JSON.stringify(b.contract) &&
      record(a.contract).enforced === record(b.contract).enforced &&
      record(a.contract).alias_types === record(b.contract).alias_types,
  },
  "columns whose descriptions, data types and own meta agree (doc_blocks, the config mirror and the node's meta copied onto them aside)": {
    aspect: 'columns',
    onlyNoise: (a, b) => {
      const own = (n: Node): string =>
        sorted(
          Object.fromEntries(
            Object.entries(record(n.columns)).map(([name, c]) => {
              const column = record(c);
              const meta = Object.fromEntries(Object.entries(record(column.meta)).filter(([k, v]) => sorted(v) !== sorted(record(n.meta)[k])));
              const tags = ((column.tags ?? []) as unknown[]).filter((t) => !((n.tags ?? []) as unknown[]).includes(t));
              return [name, [column.description ?? '', column.data_type ?? null, meta, tags, column.constraints ?? []]];
            }),
          ),
        );
      return sorted(a.columns) !== sorted(b.columns) && own(a) === own(b) && !Object.values(record(a.columns)).some((c) => record(c).dimension);
    },
  },
  "a snapshot's unique_key (and tags) written twice over by 1.12": {
    aspect: 'unrendered_config',
    onlyNoise: (a, b) => {
      const once = (config: unknown): string =>
        sorted(Object.fromEntries(Object.entries(record(config)).map(([k, v]) => [k, Array.isArray(v) ? [...new Set(v)] : v])));
      return (
        Array.isArray(record(a.unrendered_config).unique_key) &&
        sorted(a.unrendered_config) !== sorted(b.unrendered_config) &&
        once(a.unrendered_config) === once(b.unrendered_config)
      );
    },
  },
};

describe.skipIf(!hasCorpus)('dbt 1.12.2 and dbt Fusion 2.0 on the same commit', () => {
  let store: CorpusStore;
  const [a, b] = [read(FROM), read(TO)];
  const both = (m: Manifest): Record<string, Node> => ({ ...m.nodes, ...m.sources });
  const [nodesA, nodesB] = [both(a), both(b)];
  const common = Object.keys(nodesA).filter((id) => nodesB[id]);
  beforeAll(async () => {
    store = await buildCorpusStore([FROM, TO].map((dir) => path.join(CORPUS_DIR, dir)));
  });
  afterAll(() => store?.close());

  it.each(Object.entries(CASES))('%s: never reported as a change of that aspect', async (_label, { aspect, onlyNoise }) => {
    const noisy = common.filter((id) => onlyNoise(nodesA[id]!, nodesB[id]!));
    expect(noisy.length).toBeGreaterThan(0);
    const rows = await store.query('SELECT unique_id, what_changed FROM v_node_changes WHERE to_invocation = $1', [b.metadata.invocation_id]);
    const reported = rows.filter((r) => noisy.includes(String(r.unique_id)) && (r.what_changed as string[]).includes(aspect));
    expect(reported).toEqual([]);
    const diffed = (await store.diffNodes(a.metadata.invocation_id, b.metadata.invocation_id)).filter(
      (r) => noisy.includes(String(r.unique_id)) && String(r.what_changed).includes(aspect),
    );
    expect(diffed).toEqual([]);
  });

  it('never reports a node dbt ships itself (package dbt) as changed by the upgrade', async () => {
    const own = Object.keys(a.docs).filter(
      (id) => a.docs[id]!.package_name === 'dbt' && b.docs[id] && a.docs[id]!.block_contents !== b.docs[id]!.block_contents,
    );
    expect(own.length).toBeGreaterThan(0);
    const rows = await store.query('SELECT unique_id FROM v_node_changes WHERE to_invocation = $1', [b.metadata.invocation_id]);
    expect(rows.filter((r) => own.includes(String(r.unique_id)))).toEqual([]);
    const diffed = await store.diffNodes(a.metadata.invocation_id, b.metadata.invocation_id);
    expect(diffed.filter((r) => own.includes(String(r.unique_id)))).toEqual([]);
  });
});
