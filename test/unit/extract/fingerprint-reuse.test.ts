import { describe, expect, it } from 'vitest';
import { extractManifest, type PriorManifest } from '../../../src/extract/index.js';
import { bytes, syntheticMetadata, syntheticModel } from './synthetic.js';

/**
 * A fingerprint carried over from a manifest read before must be the one this manifest gives on
 * its own. The prior here is what the store would hold: the rows of the earlier manifest.
 */
const CALLER = 'macro.synthetic_project.outer';
const CALLEE = 'macro.synthetic_project.inner';

function macro(id: string, sql: string, calls: string[] = []): Record<string, unknown> {
  return { unique_id: id, name: id.split('.').pop(), package_name: 'synthetic_project', macro_sql: sql, depends_on: { macros: calls } };
}

interface Edit {
  innerSql?: string;
  listed?: string[];
  adapter?: string;
}

/** Two models, one calling `outer`, which calls `inner`; the other calling nothing. */
function manifest({ innerSql = 'select 1', listed = [CALLER], adapter = 'postgres' }: Edit = {}): Buffer {
  const calling = syntheticModel('calling', { raw_code: 'select {{ outer() }} as x', depends_on: { nodes: [], macros: listed } });
  const plain = syntheticModel('plain');
  return bytes({
    metadata: syntheticMetadata('manifest', 12, { adapter_type: adapter }),
    nodes: { [String(calling.unique_id)]: calling, [String(plain.unique_id)]: plain },
    macros: { [CALLER]: macro(CALLER, '{{ inner() }} + 1', [CALLEE]), [CALLEE]: macro(CALLEE, innerSql) },
  });
}

/** The store's view of a manifest: its node and macro rows, and its adapter. */
function priorOf(buf: Buffer, adapterType: string): PriorManifest {
  const prior = { adapterType, macros: new Map<string, string>(), nodes: new Map() } satisfies PriorManifest;
  for (const entry of extractManifest(buf).entries()) {
    if (entry.kind === 'macro') prior.macros.set(entry.invocation.unique_id, entry.invocation.macro_version_id);
    else if (entry.invocation.fingerprint) {
      const macros = entry.dependsOn.filter((d) => d.kind === 'macro').map((d) => d.depends_on_id);
      prior.nodes.set(entry.invocation.unique_id, { nodeVersionId: entry.invocation.node_version_id, fingerprint: entry.invocation.fingerprint, macros });
    }
  }
  return prior;
}

function fingerprints(buf: Buffer, prior?: PriorManifest): Record<string, string | null> {
  const out: Record<string, string | null> = {};
  for (const entry of extractManifest(buf, { prior }).entries()) if (entry.kind === 'node') out[entry.invocation.unique_id] = entry.invocation.fingerprint;
  return out;
}

/** A prior whose fingerprints are marked, so a test can tell carried-over ones from computed ones. */
function marked(prior: PriorManifest): PriorManifest {
  return { ...prior, nodes: new Map([...prior.nodes].map(([id, node]) => [id, { ...node, fingerprint: `carried:${node.fingerprint}` }])) };
}

describe('fingerprints carried over from a prior manifest', () => {
  const before = manifest();
  const prior = priorOf(before, 'postgres');

  it('are carried over when nothing they cover changed', () => {
    const carried = fingerprints(manifest(), marked(prior));
    expect(Object.values(carried).every((fp) => fp?.startsWith('carried:'))).toBe(true);
  });

  const edits: [string, Edit, string[]][] = [
    ['a macro the node reaches through another changed', { innerSql: 'select 2' }, ['model.synthetic_project.calling']],
    ['the macros the node lists changed, its version not', { listed: [CALLER, CALLEE] }, ['model.synthetic_project.calling']],
    ['the adapter (so the SQL dialect) changed', { adapter: 'bigquery' }, ['model.synthetic_project.calling', 'model.synthetic_project.plain']],
  ];
  for (const [what, edit, recomputed] of edits) {
    it(`are computed afresh where ${what}`, () => {
      const after = manifest(edit);
      const carried = fingerprints(after, marked(prior));
      const fresh = fingerprints(after);
      for (const [id, fp] of Object.entries(carried)) {
        if (recomputed.includes(id)) expect(fp).toBe(fresh[id]);
        else expect(fp).toBe(`carried:${fresh[id]}`);
      }
    });
  }

  it('equal fresh ones when the macro edit changes the fingerprint', () => {
    const after = manifest({ innerSql: 'select 2' });
    expect(fingerprints(after, prior)).toEqual(fingerprints(after));
    expect(fingerprints(after)['model.synthetic_project.calling']).not.toBe(fingerprints(before)['model.synthetic_project.calling']);
  });
});
