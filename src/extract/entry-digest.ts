import { sha256 } from '../vocab/index.js';
import type { ByteRange } from './scan-items.js';

/**
 * The name a node entry is known by from one manifest to the next: SHA-256 of its JSON bytes
 * as dbt wrote them, with what else shapes its rows (the schema version, the section it sits
 * in, the key it is filed under). In a history where 1 % of nodes change per run, 99 % of a
 * manifest's entries are byte for byte as before; hashing them costs about a tenth of parsing
 * them, and a known entry is neither parsed nor hashed canonically again (manifest-nodes.ts).
 */
export function entryDigest(buf: Buffer, range: ByteRange, shapedBy: { schemaVersion: number | null; section: string; key: string }): string {
  return sha256(`${shapedBy.schemaVersion ?? ''}\0${shapedBy.section}\0${shapedBy.key}\0${sha256(buf.subarray(range.start, range.end))}`);
}
