import type { CatalogFact, CurrentNode, FreshnessCheck } from '../store/index.js';
import { isoFromMicros } from './time.js';
import type { Check } from './types.js';

/**
 * Has a source's data changed since a node was last built? Proof comes from the catalog or
 * from freshness checks; without either the answer is unknown, and unknown is never reused.
 * - An atomic catalog (Nessie, lakeFS) whose snapshot id is the one recorded for the build
 *   proves every table unchanged.
 * - A per-table catalog (iceberg-rest) proves it table by table: this source's own snapshot id
 *   unchanged, or changed.
 * - Otherwise, the freshness checks (sources.json) taken after the build: the newest
 *   max_loaded_at among them is newer than the build, or not. Times compare strictly.
 */
export interface SourceInputs {
  builtAtUs: number | null;
  buildCatalog: CatalogFact | null;
  currentCatalog: CatalogFact | null;
  checks: readonly FreshnessCheck[];
}

/** A source check's old value when its node's last build has no known time: no freshness check can help it. */
export const BUILD_TIME_UNKNOWN = 'build time unknown';

export function checkSource(source: CurrentNode, inputs: SourceInputs): Check {
  const old = isoFromMicros(inputs.builtAtUs);
  const name = `source ${source.uniqueId}`;
  const proof = catalogProof(source, inputs.buildCatalog, inputs.currentCatalog);
  if (proof) return { check: name, old: proof.old, new: proof.new, ok: proof.unchanged, reason: proof.unchanged ? null : 'source data newer' };
  if (inputs.builtAtUs === null) return { check: name, old: BUILD_TIME_UNKNOWN, new: null, ok: false, reason: 'freshness unknown' };
  const after = inputs.checks.filter((c) => c.takenAtUs !== null && c.takenAtUs > inputs.builtAtUs!);
  const loaded = after.map((c) => c.maxLoadedAtUs).filter((us): us is number => us !== null);
  if (loaded.length === 0) {
    const why = after.length > 0 ? 'checked after the build, max_loaded_at unknown' : 'no freshness check since the build';
    return { check: name, old: `built ${old}`, new: why, ok: false, reason: 'freshness unknown' };
  }
  const newest = Math.max(...loaded);
  const unchanged = newest <= inputs.builtAtUs;
  return { check: name, old: `built ${old}`, new: `max_loaded_at ${isoFromMicros(newest)}`, ok: unchanged, reason: unchanged ? null : 'source data newer' };
}

interface Proof {
  unchanged: boolean;
  old: string;
  new: string;
}

function catalogProof(source: CurrentNode, build: CatalogFact | null, current: CatalogFact | null): Proof | null {
  if (!build || !current || build.status !== 'ok' || current.status !== 'ok') return null;
  if (build.atomic && current.atomic && build.snapshotId && current.snapshotId) {
    // A different atomic snapshot says something changed somewhere, not that this table did.
    if (build.snapshotId !== current.snapshotId) return null;
    return { unchanged: true, old: `catalog snapshot ${build.snapshotId}`, new: `catalog snapshot ${current.snapshotId}` };
  }
  const key = source.tableKey;
  if (!key || !build.perTable || !current.perTable || !(key in build.perTable) || !(key in current.perTable)) return null;
  const before = build.perTable[key] ?? null;
  const now = current.perTable[key] ?? null;
  if (before === null || now === null) return null;
  return { unchanged: before === now, old: `table snapshot ${before}`, new: `table snapshot ${now}` };
}
