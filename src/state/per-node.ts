import { readBlob, type Backend } from '../archive/index.js';
import { AtticError } from '../errors.js';
import { commandName, normaliseStatus } from '../extract/index.js';
import { BUILD_SUCCESS_STATUSES, isBuildingCommand } from '../vocab/index.js';
import { listArchivedInvocations, type ArchivedInvocation } from './invocations.js';
import { InlinedInputs, isEphemeral } from './inlined-inputs.js';
import { refuseUnknownBranch } from './known-branch.js';
import { branchFilter } from './last-success.js';

/**
 * Which invocation each node's state comes from, for `state --per-node`: jobs on different
 * schedules leave no one manifest that was every node's last success, so each node of the
 * newest manifest is taken from its own newest successful build (a result `success` or `pass`
 * of a command that builds), on the target and branch asked for.
 * - A node whose newest successful build has no manifest of its own in the archive, or one of
 *   another schema version than the newest manifest, is left out: dbt then sees it as new and
 *   builds it, which is safe, where an older definition could hide a change.
 * - A node built with other macros, ephemeral models or sources than the newest manifest holds
 *   is left out too (inlined-inputs.ts): the state has one copy of those, the newest, and dbt
 *   comparing against it would miss a change made since the node's build.
 * - Nodes dbt never builds (analyses, operations, ephemeral models) keep the newest manifest's
 *   entry: an ephemeral model has no result of its own, and taken from nowhere it would be new
 *   to dbt, and everything downstream of it with it.
 */
export type Doc = Record<string, unknown>;

export interface NodeSource {
  invocationId: string;
  /** The node's entry in that invocation's manifest, and its result in that invocation's run_results. */
  entry: Doc;
  result: Doc;
  resultsVersion: string;
}

export interface PerNodeSelection {
  base: ArchivedInvocation;
  baseManifest: Doc;
  nodes: Map<string, NodeSource>;
  leftOut: string[];
  /** run_results documents read, newest first (metadata and args come from the first). */
  runResults: { invocationId: string; doc: Doc }[];
}

const SUCCESS: ReadonlySet<string> = new Set(BUILD_SUCCESS_STATUSES);
const BUILT_TYPES = new Set(['model', 'seed', 'snapshot', 'test', 'unit_test']);

/** A node a build gives a result of its own. */
export function isBuiltNode(node: Doc): boolean {
  return BUILT_TYPES.has(String(node.resource_type)) && !isEphemeral(node);
}

export async function selectPerNode(backend: Backend, query: { target?: string; branch?: string }): Promise<PerNodeSelection> {
  const onBranch = query.branch ? await branchFilter(backend, query.branch) : () => true;
  const invocations = (await listArchivedInvocations(backend)).filter(onBranch);
  const base = invocations.find((inv) => inv.artifacts.manifest);
  if (!base && query.branch) await refuseUnknownBranch(backend, query.branch);
  if (!base)
    throw new AtticError('not-found', `No manifest in the archive${query.branch ? ` on branch ${query.branch}` : ''}. Capture a dbt parse or build first.`);
  const baseManifest = await readDoc(backend, base, 'manifest');
  const version = schemaOf(baseManifest);
  const wanted = new Set(
    Object.entries(nodesOf(baseManifest))
      .filter(([, n]) => isBuiltNode(n))
      .map(([id]) => id),
  );
  const selection: PerNodeSelection = { base, baseManifest, nodes: new Map(), leftOut: [], runResults: [] };
  const decided = new Set<string>();
  for (const invocation of invocations) {
    if (!invocation.artifacts.run_results) continue;
    const doc = await readDoc(backend, invocation, 'run_results');
    const args = (doc.args ?? {}) as Doc;
    if (!isBuildingCommand(commandName(args))) continue;
    if (query.target && args.target !== query.target) continue;
    const succeeded = resultsOf(doc).filter(
      (r) => wanted.has(String(r.unique_id)) && !decided.has(String(r.unique_id)) && SUCCESS.has(normaliseStatus(r.status) ?? ''),
    );
    if (succeeded.length === 0) continue;
    selection.runResults.push({ invocationId: invocation.invocationId, doc });
    const manifest = invocation.artifacts.manifest ? await readDoc(backend, invocation, 'manifest') : null;
    const inputs = manifest && new InlinedInputs(manifest, baseManifest);
    for (const result of succeeded) {
      const id = String(result.unique_id);
      decided.add(id);
      const entry = manifest && schemaOf(manifest) === version ? nodesOf(manifest)[id] : undefined;
      if (entry && !inputs!.changedSinceBuild(id))
        selection.nodes.set(id, { invocationId: invocation.invocationId, entry, result, resultsVersion: schemaOf(doc) });
      else selection.leftOut.push(id);
    }
  }
  return selection;
}

export async function readDoc(backend: Backend, invocation: ArchivedInvocation, artifact: 'manifest' | 'run_results' | 'sources'): Promise<Doc> {
  return JSON.parse((await readBlob(backend, invocation.artifacts[artifact]!.sha256)).toString('utf8')) as Doc;
}

export function schemaOf(doc: Doc): string {
  return String(((doc.metadata ?? {}) as Doc).dbt_schema_version ?? '');
}

export function nodesOf(manifest: Doc): Record<string, Doc> {
  return (manifest.nodes ?? {}) as Record<string, Doc>;
}

export function resultsOf(doc: Doc): Doc[] {
  return Array.isArray(doc.results) ? (doc.results as Doc[]) : [];
}
