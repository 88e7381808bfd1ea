import { scanDocument, type JsonMember } from '../json/scan.js';
import { openArtifact, type ArtifactHeader, type ReadOptions } from './detect.js';
import { asObject, str, type JsonObject } from './fields.js';
import { metadataFacts } from './invocation.js';
import { shapeKnownNode, shapeMacro, shapeNode, type MacroEntry, type NodeContext, type NodeEntry } from './manifest-nodes.js';
import { entryDigest } from './entry-digest.js';
import { inferProjectName } from './project-name.js';
import type { InvocationFacts, NodeEntryRow } from './rows.js';
import { createFingerprintContext, type FingerprintContext, type MacroInput } from './fingerprint-context.js';
import { fingerprintNode } from './node-fingerprint.js';
import { fingerprintReuse, type PriorManifest, type ReusedFingerprint } from './fingerprint-reuse.js';
import { macroVersionId } from './node-version.js';
import { guardScan, listItems, mapMembers, parseRange, readGuarded } from './scan-items.js';

/**
 * manifest.json → rows, one entry at a time. A manifest can outgrow what V8 holds in one string
 * (~512 MB), so the top-level maps are walked with the byte scanner and each node is parsed on
 * its own; memory stays near the size of the bytes plus one node.
 */
export type ManifestEntry = NodeEntry | MacroEntry;

export interface ManifestExtract {
  header: ArtifactHeader;
  invocation: InvocationFacts;
  /** Every node and macro of the manifest, shaped into rows as the iteration reaches it. */
  entries(): Generator<ManifestEntry>;
}

/** Map sections of the manifest whose entries are nodes, with the resource type they imply. */
const NODE_SECTIONS: Readonly<Record<string, string | null>> = {
  nodes: null,
  sources: 'source',
  exposures: 'exposure',
  metrics: 'metric',
  semantic_models: 'semantic_model',
  saved_queries: 'saved_query',
  unit_tests: 'unit_test',
  groups: 'group',
  functions: 'function',
  docs: 'doc',
};

const FINGERPRINTED_SECTIONS = new Set(['nodes', 'unit_tests']);

export interface ManifestReadOptions extends ReadOptions {
  /** A manifest read before, whose fingerprints are carried over where they cannot differ (fingerprint-reuse.ts). */
  prior?: PriorManifest;
  /** Entries read before, by digest (the node_entry memo): their rows are taken, not derived again. */
  knownEntries?: ReadonlyMap<string, NodeEntryRow>;
}

export function extractManifest(buf: Buffer, options: ManifestReadOptions = {}): ManifestExtract {
  const { header, invocationId } = openArtifact(buf, 'manifest', options);
  return {
    header,
    invocation: manifestFacts(buf, header, invocationId),
    entries: () =>
      guardScan(
        'manifest',
        manifestEntries(buf, {
          schemaVersion: header.schemaVersion,
          invocationId,
          fingerprint: fingerprinter(buf, header, options.prior),
          known: options.knownEntries ?? new Map(),
        }),
      ),
  };
}

function manifestFacts(buf: Buffer, header: ArtifactHeader, invocationId: string): InvocationFacts {
  const metadata = header.metadata;
  const projectId = str(metadata.project_id);
  const projectName = str(metadata.project_name) ?? (projectId ? readGuarded('manifest', () => inferProjectName(buf, projectId)) : null);
  return {
    ...metadataFacts(header, invocationId),
    // Not when the invocation started: a partial parse keeps the metadata of the parse that made
    // its cache, with a new id and generated_at (dbt 1.12 beside us: 30 minutes old; 8 of 14
    // invocations in the corpus with both files: 2 minutes to 43 hours before run_results' start).
    // Without run results, the manifest's generated_at, its parse, is the nearest to the start.
    started_at: null,
    project_name: projectName,
    project_id: projectId,
    adapter_type: str(metadata.adapter_type),
  };
}

type Fingerprinter = NonNullable<NodeContext['fingerprint']>;

interface EntriesContext {
  schemaVersion: number | null;
  invocationId: string;
  fingerprint: Fingerprinter;
  known: ReadonlyMap<string, NodeEntryRow>;
}

function* manifestEntries(buf: Buffer, read: EntriesContext): Generator<ManifestEntry> {
  const { schemaVersion, invocationId } = read;
  for (const section of scanDocument(buf)) {
    if (section.key === 'macros') {
      for (const member of mapMembers(buf, section)) yield shapeMacro(parseNode(buf, member), invocationId, member.key);
    } else if (section.key === 'disabled') {
      yield* disabledEntries(buf, section, schemaVersion, invocationId);
    } else if (Object.hasOwn(NODE_SECTIONS, section.key)) {
      const sectionType = NODE_SECTIONS[section.key] ?? null;
      for (const member of mapMembers(buf, section)) {
        // Nodes build or test something, and unit tests test a model; sources, docs, exposures... have no fingerprint.
        const context = {
          invocationId,
          schemaVersion,
          key: member.key,
          sectionType,
          disabled: false,
          ...(FINGERPRINTED_SECTIONS.has(section.key) ? { fingerprint: read.fingerprint } : {}),
        };
        const digest = entryDigest(buf, member, { schemaVersion, section: section.key, key: member.key });
        const known = read.known.get(digest);
        yield known ? shapeKnownNode(known, () => parseNode(buf, member), context) : shapeNode(parseNode(buf, member), context, digest);
      }
    }
  }
}

/**
 * v1–v3 (dbt 0.19–0.21, and before) wrote `disabled` as a list of nodes; v4+ as a map from
 * unique_id to a list, since one node can be disabled in several files. Identical entries under one id
 * would be the same version, so each is given once.
 */
function* disabledEntries(buf: Buffer, section: JsonMember, schemaVersion: number | null, invocationId: string): Generator<NodeEntry> {
  const isList = schemaVersion === null || schemaVersion <= 3;
  const groups = isList ? [{ key: '', items: listItems(buf, section) }] : disabledGroups(buf, section);
  for (const { key, items } of groups) {
    const seen = new Set<string>();
    for (const item of items) {
      const node = parseNode(buf, item);
      const context = { invocationId, schemaVersion, key: str(node.unique_id) ?? key, sectionType: null, disabled: true };
      const entry = shapeNode(node, context, null);
      if (seen.has(entry.invocation.node_version_id)) continue;
      seen.add(entry.invocation.node_version_id);
      yield entry;
    }
  }
}

function* disabledGroups(buf: Buffer, section: JsonMember): Generator<{ key: string; items: Iterable<{ start: number; end: number }> }> {
  for (const member of mapMembers(buf, section)) yield { key: member.key, items: listItems(buf, member) };
}

/**
 * Fingerprints need every macro before the first node (a node's fingerprint covers the macros
 * it calls), and dbt writes `macros` after `nodes`: a first pass keeps just each macro's SQL
 * and calls, which is small beside the manifest.
 */
function fingerprinter(buf: Buffer, header: ArtifactHeader, prior?: PriorManifest): Fingerprinter {
  const adapterType = str(header.metadata.adapter_type);
  let context: FingerprintContext | undefined;
  let reused: ReusedFingerprint | undefined;
  return (node, { uniqueId, nodeVersionId, listedMacros }) => {
    if (!context) {
      const macros = readMacros(buf, prior !== undefined);
      context = createFingerprintContext({ metadata: { adapter_type: adapterType }, macros: macros.inputs });
      if (prior) reused = fingerprintReuse(prior, adapterType, macros);
    }
    return reused?.(uniqueId, nodeVersionId, listedMacros) ?? fingerprintNode(node(), context);
  };
}

/** Each macro's SQL and calls; with `versions`, each one's version id too (for fingerprint reuse). */
function readMacros(buf: Buffer, versions: boolean): { inputs: Record<string, MacroInput>; versions: Map<string, string>; calls: Map<string, string[]> } {
  const read = { inputs: {} as Record<string, MacroInput>, versions: new Map<string, string>(), calls: new Map<string, string[]>() };
  for (const section of scanDocument(buf)) {
    if (section.key !== 'macros') continue;
    for (const member of mapMembers(buf, section)) {
      const macro = parseNode(buf, member);
      const dependsOn = asObject(macro.depends_on);
      const calls = Array.isArray(dependsOn?.macros) ? dependsOn.macros.filter((m): m is string => typeof m === 'string') : [];
      read.inputs[member.key] = { macro_sql: str(macro.macro_sql), depends_on: { macros: calls } };
      read.calls.set(member.key, calls);
      // Keyed as the fingerprint looks macros up; the store keys them by unique_id, so a macro
      // whose key is not its unique_id counts as changed, never as the same.
      if (versions) read.versions.set(member.key, macroVersionId(macro));
    }
  }
  return read;
}

function parseNode(buf: Buffer, range: { start: number; end: number }): JsonObject {
  return asObject(parseRange(buf, range)) ?? {};
}
