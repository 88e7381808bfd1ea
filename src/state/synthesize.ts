import path from 'node:path';
import { promises as fs } from 'node:fs';
import type { Backend } from '../archive/index.js';
import { listArchivedInvocations } from './invocations.js';
import { branchFilter } from './last-success.js';
import { markStateDir, writeAtomically } from './materialize.js';
import { isBuiltNode, nodesOf, readDoc, resultsOf, schemaOf, selectPerNode, type Doc, type PerNodeSelection } from './per-node.js';

/**
 * A --state directory made of each node's own newest successful build (per-node.ts): the
 * newest manifest with each built node's entry replaced by the one its build had, the results
 * of those builds, and the newest freshness result of each source. Metadata says so:
 * `metadata.env.DBTATTIC_STATE = "per-node"` and the invocations it came from, in
 * DBTATTIC_STATE_INVOCATIONS (dbt copies env into metadata, so the field is one dbt itself
 * writes), and in full, node by node, in dbtattic-state.json beside the artifacts.
 */
export interface PerNodeState {
  manifest: Doc;
  runResults: Doc | null;
  sources: Doc | null;
  provenance: {
    synthesized: 'per-node';
    base_invocation: string;
    invocations: string[];
    nodes: Record<string, string>;
    left_out: string[];
  };
}

export async function synthesizePerNodeState(backend: Backend, query: { target?: string; branch?: string }): Promise<PerNodeState> {
  const selection = await selectPerNode(backend, query);
  const invocations = [...new Set([...selection.nodes.values()].map((n) => n.invocationId))];
  const stamp = { DBTATTIC_STATE: 'per-node', DBTATTIC_STATE_INVOCATIONS: invocations.join(',') };
  return {
    manifest: synthesizeManifest(selection, stamp),
    runResults: synthesizeRunResults(selection, stamp),
    sources: await newestFreshness(backend, query.branch, stamp),
    provenance: {
      synthesized: 'per-node',
      base_invocation: selection.base.invocationId,
      invocations,
      nodes: Object.fromEntries([...selection.nodes].map(([id, n]) => [id, n.invocationId]).sort()),
      left_out: selection.leftOut.sort(),
    },
  };
}

function stamped(metadata: unknown, stamp: Record<string, string>): Doc {
  const meta = (metadata ?? {}) as Doc;
  return { ...meta, env: { ...((meta.env ?? {}) as Doc), ...stamp } };
}

function synthesizeManifest(selection: PerNodeSelection, stamp: Record<string, string>): Doc {
  const nodes: Record<string, Doc> = {};
  for (const [id, node] of Object.entries(nodesOf(selection.baseManifest))) {
    const built = selection.nodes.get(id);
    if (built) nodes[id] = built.entry;
    else if (!isBuiltNode(node)) nodes[id] = node;
  }
  return { ...selection.baseManifest, metadata: stamped(selection.baseManifest.metadata, stamp), nodes };
}

/** Results of the chosen builds, in the shape of the newest run_results among them. */
function synthesizeRunResults(selection: PerNodeSelection, stamp: Record<string, string>): Doc | null {
  const newest = selection.runResults[0]?.doc;
  if (!newest) return null;
  const results = [...selection.nodes.values()].filter((n) => n.resultsVersion === schemaOf(newest)).map((n) => n.result);
  const elapsed = results.reduce((sum, r) => sum + (typeof r.execution_time === 'number' ? r.execution_time : 0), 0);
  return { ...newest, metadata: stamped(newest.metadata, stamp), results, elapsed_time: elapsed };
}

/** Each source's newest freshness result (dbt's source_status: compares against it). */
async function newestFreshness(backend: Backend, branch: string | undefined, stamp: Record<string, string>): Promise<Doc | null> {
  const onBranch = branch ? await branchFilter(backend, branch) : () => true;
  const withSources = (await listArchivedInvocations(backend)).filter((inv) => inv.artifacts.sources && onBranch(inv));
  if (withSources.length === 0) return null;
  const newest = await readDoc(backend, withSources[0]!, 'sources');
  const byId = new Map<string, Doc>();
  for (const invocation of withSources) {
    const doc = invocation === withSources[0] ? newest : await readDoc(backend, invocation, 'sources');
    if (schemaOf(doc) !== schemaOf(newest)) continue;
    for (const result of resultsOf(doc)) if (!byId.has(String(result.unique_id))) byId.set(String(result.unique_id), result);
  }
  return { ...newest, metadata: stamped(newest.metadata, stamp), results: [...byId.values()] };
}

/** Writes the state directory: each file atomically (temp, then rename), so dbt never reads half a file. */
export async function writePerNodeState(state: PerNodeState, dir: string): Promise<string[]> {
  await markStateDir(dir);
  const files: [string, Doc | null][] = [
    ['manifest.json', state.manifest],
    ['run_results.json', state.runResults],
    ['sources.json', state.sources],
    ['dbtattic-state.json', state.provenance],
  ];
  const written: string[] = [];
  for (const [name, doc] of files) {
    const file = path.join(dir, name);
    if (!doc) {
      await fs.rm(file, { force: true });
      continue;
    }
    await writeAtomically(file, Buffer.from(`${JSON.stringify(doc)}\n`));
    written.push(file);
  }
  return written;
}
