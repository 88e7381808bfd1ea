import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { extractManifest, type NodeEntryRow } from '../../../src/extract/index.js';
import { buildFixtureStore, type FixtureStore } from './fixture-store.js';

/**
 * Ingest takes a node's per-invocation rows from the node_entry memo when the manifest holds its
 * entry byte for byte as before (extract/entry-digest.ts). Whatever the memo gave must be what
 * the manifest's JSON says, read here with nothing of ours in between.
 */
let fx: FixtureStore;
beforeAll(async () => {
  fx = await buildFixtureStore();
});
afterAll(() => fx?.close());

interface JsonNode {
  unique_id: string;
  relation_name?: string | null;
  compiled_code?: string | null;
  depends_on?: { nodes?: string[]; macros?: string[] };
}

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/** What the JSON says of each enabled node's per-invocation rows: relation, compiled SQL, edges. */
function expectedRows(manifest: { nodes: Record<string, JsonNode>; sources?: Record<string, JsonNode> }) {
  const nodes = { ...manifest.nodes, ...(manifest.sources ?? {}) };
  return new Map(
    Object.values(nodes).map((n) => [
      n.unique_id,
      {
        relation_name: n.relation_name ?? null,
        compiled_code_id: typeof n.compiled_code === 'string' ? sha256(n.compiled_code) : null,
        edges: [...new Set((n.depends_on?.nodes ?? []).map((d) => `node ${d}`)), ...new Set((n.depends_on?.macros ?? []).map((d) => `macro ${d}`))].sort(),
      },
    ]),
  );
}

describe('node entries taken from the memo', () => {
  it('give each invocation the rows its manifest says, for entries known and new alike', async () => {
    let checked = 0;
    for (const step of fx.steps) {
      const manifest = fx.written<{ nodes: Record<string, JsonNode> }>(step, 'manifest.json');
      if (!manifest) continue;
      const expected = expectedRows(manifest);
      const rows = await fx.query('SELECT unique_id, relation_name, compiled_code_id FROM node_invocation WHERE invocation_id = $1', [step.invocation_id]);
      const edges = await fx.query("SELECT unique_id, kind || ' ' || depends_on_id AS edge FROM node_depends_on WHERE invocation_id = $1", [
        step.invocation_id,
      ]);
      for (const row of rows) {
        const want = expected.get(String(row.unique_id));
        if (!want) continue; // exposures, docs...: outside what this test reads
        expect({ relation_name: row.relation_name, compiled_code_id: row.compiled_code_id }, String(row.unique_id)).toEqual({
          relation_name: want.relation_name,
          compiled_code_id: want.compiled_code_id,
        });
        const got = edges
          .filter((e) => e.unique_id === row.unique_id)
          .map((e) => String(e.edge))
          .sort();
        expect(got, `edges of ${String(row.unique_id)}`).toEqual(want.edges);
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(100);
  });

  it('holds only rows that a fresh reading of an entry with that digest gives', async () => {
    const memo = new Map(
      (await fx.query('SELECT * REPLACE (depends_on_nodes::VARCHAR AS depends_on_nodes, depends_on_macros::VARCHAR AS depends_on_macros) FROM node_entry')).map(
        (r) => [String(r.entry_digest), r],
      ),
    );
    let seen = 0;
    let taken = 0;
    for (const step of fx.steps) {
      const bytes = fx.writtenBytes(step, 'manifest.json');
      if (!bytes) continue;
      const knownEntries = new Map([...memo].map(([digest, r]) => [digest, r as unknown as NodeEntryRow]));
      for (const entry of extractManifest(bytes).entries()) {
        if (entry.kind !== 'node' || !entry.entry) continue;
        const held = memo.get(entry.entry.entry_digest);
        if (!held) continue;
        seen++;
        expect(held).toEqual(entry.entry);
      }
      // Read again with the memo: every entry found there is taken, with the same rows.
      const fresh = [...extractManifest(bytes).entries()];
      const withMemo = [...extractManifest(bytes, { knownEntries }).entries()];
      expect(withMemo.map((e) => e.invocation)).toEqual(fresh.map((e) => e.invocation));
      expect(withMemo.map((e) => (e.kind === 'node' ? e.dependsOn : null))).toEqual(fresh.map((e) => (e.kind === 'node' ? e.dependsOn : null)));
      taken += withMemo.filter((e) => e.kind === 'node' && e.known).length;
    }
    expect(seen).toBeGreaterThan(100);
    expect(taken).toBeGreaterThan(100);
  });

  it('builds the version and compiled SQL of a known entry from its bytes when asked (the store lost them)', () => {
    const step = fx.steps.find((s) => fx.writtenBytes(s, 'manifest.json'))!;
    const bytes = fx.writtenBytes(step, 'manifest.json')!;
    const fresh = [...extractManifest(bytes).entries()].filter((e) => e.kind === 'node');
    const knownEntries = new Map(fresh.flatMap((e) => (e.entry ? [[e.entry.entry_digest, e.entry] as const] : [])));
    const known = [...extractManifest(bytes, { knownEntries }).entries()].filter((e) => e.kind === 'node');
    expect(known.filter((e) => e.known).length).toBe(knownEntries.size);
    expect(known.map((e) => [e.version, e.compiledCode])).toEqual(fresh.map((e) => [e.version, e.compiledCode]));
  });
});
