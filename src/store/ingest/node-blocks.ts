import { sha256 } from '../../vocab/index.js';

/**
 * An invocation's nodes as content-defined blocks (schema/001-tables.sql, node_block). Sorted by
 * unique_id, the nodes are cut after each unique_id whose hash is a multiple of BLOCK_NODES, so
 * a block ends where its own keys say, whatever the rest of the manifest holds: an edited,
 * added or removed node changes only the block it falls in, and every other block keeps its
 * id and is not written again. A block id is the hash of its rows; a macro set's, of its
 * sorted macros. Pure: deciding the rows here, writing them in node-block-writer.ts.
 */

/**
 * Nodes per block on average. Each run writes a row per block it holds (N / BLOCK_NODES) and
 * every row of each block it changed (about changed x BLOCK_NODES): at 10,000 nodes with 1 % of
 * them changed per run the sum is smallest near 8 (1,250 block rows and about 800 node rows).
 */
export const BLOCK_NODES = 8;

/** What a manifest says of one node in an invocation, beside its version. */
export interface NodeMember {
  unique_id: string;
  node_version_id: string;
  fingerprint: string | null;
  relation_name: string | null;
  compiled_code_id: string | null;
  /** depends_on.macros, each once; empty for a disabled node. */
  macros: readonly string[];
}

/** A row of node_block, columns in the table's order. */
export interface NodeBlockRow {
  block_id: string;
  unique_id: string;
  node_version_id: string;
  fingerprint: string | null;
  relation_name: string | null;
  compiled_code_id: string | null;
  macro_set_id: string | null;
}

export interface NodeBlock {
  blockId: string;
  rows: NodeBlockRow[];
}

export interface MacroSet {
  macroSetId: string;
  macros: string[];
}

export interface NodeBlocks {
  blocks: NodeBlock[];
  macroSets: MacroSet[];
}

export function planNodeBlocks(members: readonly NodeMember[]): NodeBlocks {
  const sets = new Map<string, MacroSet>();
  const sorted = [...members].sort(compareMembers);
  const blocks: NodeBlock[] = [];
  let pending: Omit<NodeBlockRow, 'block_id'>[] = [];
  sorted.forEach((member, i) => {
    pending.push({ ...rowOf(member), macro_set_id: macroSetOf(member.macros, sets) });
    const next = sorted[i + 1];
    // All entries of one unique_id (enabled and disabled) stay in one block.
    if (next === undefined || (next.unique_id !== member.unique_id && endsBlock(member.unique_id))) {
      blocks.push(sealBlock(pending));
      pending = [];
    }
  });
  return { blocks, macroSets: [...sets.values()] };
}

function rowOf(member: NodeMember): Omit<NodeBlockRow, 'block_id' | 'macro_set_id'> {
  const { unique_id, node_version_id, fingerprint, relation_name, compiled_code_id } = member;
  return { unique_id, node_version_id, fingerprint, relation_name, compiled_code_id };
}

function compareMembers(a: NodeMember, b: NodeMember): number {
  return compareText(a.unique_id, b.unique_id) || compareText(a.node_version_id, b.node_version_id);
}

/** Code-unit order, the same on every machine (no locale). */
function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** `sets` is keyed by the sorted macros: most nodes list one of a few sets, hashed once each. */
function macroSetOf(macros: readonly string[], sets: Map<string, MacroSet>): string | null {
  if (macros.length === 0) return null;
  const sorted = [...new Set(macros)].sort(compareText);
  const key = sorted.join('\n');
  let set = sets.get(key);
  if (!set) sets.set(key, (set = { macroSetId: shortHash(JSON.stringify(sorted)), macros: sorted }));
  return set.macroSetId;
}

function sealBlock(rows: Omit<NodeBlockRow, 'block_id'>[]): NodeBlock {
  const blockId = shortHash(
    JSON.stringify(rows.map((r) => [r.unique_id, r.node_version_id, r.fingerprint, r.relation_name, r.compiled_code_id, r.macro_set_id])),
  );
  return { blockId, rows: rows.map((r) => ({ block_id: blockId, ...r })) };
}

/**
 * 128 bits of sha256: block and macro-set ids are repeated in a row per block per invocation,
 * and half the hash is as safe from collisions within one store.
 */
function shortHash(text: string): string {
  return sha256(text).slice(0, 32);
}

/** FNV-1a of the unique_id: cheap, and the same in every release (the cut points are part of the stored ids). */
export function endsBlock(uniqueId: string): boolean {
  let hash = 0x811c9dc5;
  for (let i = 0; i < uniqueId.length; i++) {
    hash ^= uniqueId.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash % BLOCK_NODES === 0;
}
