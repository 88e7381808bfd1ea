import type { Row } from './cli/attic-client.js';
import { formatSeconds, formatTrend } from './format.js';

/** A model's (seed's, snapshot's) figures from the store, as NODE_FILE_STATS reads them. */
export interface NodeStats {
  uniqueId: string;
  name: string;
  resourceType: string;
  /** The file, relative to the project directory. */
  path: string;
  lastStatus: string | null;
  lastSeconds: number | null;
  medianSeconds: number | null;
  trendRatio: number | null;
  runsSinceChange: number;
}

export function statsOf(row: Row): NodeStats {
  const number = (value: unknown): number | null => (value === null || value === undefined ? null : Number(value));
  return {
    uniqueId: String(row.unique_id),
    name: String(row.name),
    resourceType: String(row.resource_type),
    path: String(row.path),
    lastStatus: row.last_status === null || row.last_status === undefined ? null : String(row.last_status),
    lastSeconds: number(row.last_s),
    medianSeconds: number(row.median_s),
    trendRatio: number(row.trend_ratio),
    runsSinceChange: Number(row.runs_since_change ?? 0),
  };
}

/** The CodeLens line above a model: what the store says about its builds. */
export function lensTitle(stats: NodeStats): string {
  if (stats.lastStatus === null) return `dbtattic: ${stats.name} not built yet`;
  return [
    `dbtattic: last ${stats.lastStatus} in ${formatSeconds(stats.lastSeconds)}`,
    `median ${formatSeconds(stats.medianSeconds)}`,
    formatTrend(stats.trendRatio),
    `${stats.runsSinceChange} ${stats.runsSinceChange === 1 ? 'build' : 'builds'} since semantic change`,
  ].join(' · ');
}

/** The model a ref names: the last quoted argument before any version (ref('pkg', 'x') → x). */
export function refTarget(refCall: string): string | undefined {
  const quoted = [...refCall.replace(/,\s*v(ersion)?\s*=.*$/, '').matchAll(/(['"])([^'"]+)\1/g)].map((m) => m[2]);
  return quoted[quoted.length - 1];
}
