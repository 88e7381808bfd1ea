import { sha256 } from '../../../vocab/hash.js';
import { JsonScanError, objectMembers, scanDocument } from '../../../json/scan.js';
import { AtticError } from '../../../errors.js';

/**
 * Iceberg snapshot ids are 64-bit integers, beyond what a JSON number survives in JavaScript
 * (2^53): `JSON.parse` would round 8744736658442914487 to 8744736658442914000, and two
 * snapshots could share an id. So the id is read as the raw digits of the JSON text.
 */

const INTEGER = /^-?\d+$/;

/** `metadata['current-snapshot-id']` of a LoadTableResult; null for a table without snapshots (absent, null, or the v1 format's -1). */
export function readCurrentSnapshotId(body: Buffer, what: string): string | null {
  try {
    const metadata = scanDocument(body).find((member) => member.key === 'metadata');
    if (metadata === undefined || body[metadata.start] !== 0x7b) throw new AtticError('catalog', `${what}: the answer has no metadata object.`);
    for (const member of objectMembers(body, metadata.start, metadata.end)) {
      if (member.key !== 'current-snapshot-id') continue;
      const raw = body.toString('utf8', member.start, member.end);
      if (raw === 'null' || raw === '-1') return null;
      if (!INTEGER.test(raw)) throw new AtticError('catalog', `${what}: current-snapshot-id is not an integer.`);
      return raw;
    }
    return null;
  } catch (error) {
    if (error instanceof JsonScanError) throw new AtticError('catalog', `${what}: the server answered with malformed JSON (${error.message}).`);
    throw error;
  }
}

/**
 * One id for the set of tables, stable across runs: sha256 over the sorted `table=snapshot`
 * lines. A table without snapshots counts as `none`, one the catalog does not know as `absent`,
 * so creating or dropping a table changes the id as a new snapshot does.
 */
export function combineSnapshotIds(entries: ReadonlyMap<string, string | null>): string {
  const lines = [...entries].map(([table, id]) => `${table}=${id ?? 'none'}`).sort();
  return sha256(lines.join('\n'));
}
