import type { RunInfo } from '../archive/index.js';
import type { PresentArtifact } from './target.js';

/**
 * Which invocation the SQL and log in target/ and logs/ belong to, and since when: dbt rewrites
 * the files of the nodes it compiles and leaves every other file as it was, so only a file
 * modified after the invocation began is its own. The invocation is the newest one whose
 * artifacts sit in target/ (run_results is written last); its start is, in order of trust,
 * the moment `dbtattic run` started dbt (when dbt wrote the artifacts during that run), dbt's `invocation_started_at` (1.9+), or the earliest
 * `generated_at` of its artifacts (the manifest is written after parsing, before any SQL).
 * A `run` whose command left no readable artifact (dbt crashed, or was killed while writing
 * them) wrote its files for nobody the archive knows: the invocation before it had its own
 * captured when the run began, so none is named.
 */
export interface Attribution {
  invocationId: string;
  startedAt: Date;
  startedFrom: 'run' | 'invocation_started_at' | 'generated_at';
  /** Its run_results.json is in target/: dbt writes it after every file, so the invocation's files are all written. */
  finished: boolean;
  /** Changes when the invocation's artifacts change: an earlier capture's conclusion holds while it does not. */
  marker: string;
}

export function attributeOutputs(present: readonly PresentArtifact[], run: RunInfo | null): Attribution | null {
  const owned = present.filter((a) => a.invocationIdSource === 'metadata');
  const newest = [...owned].sort((a, b) => time(b.header.generatedAt) - time(a.header.generatedAt) || rank(b) - rank(a))[0];
  if (!newest) return null;
  const mine = owned.filter((a) => a.invocationId === newest.invocationId);
  const marker = mine
    .map((a) => `${a.artifact}:${a.sha256}`)
    .sort()
    .join(',');
  const finished = mine.some((a) => a.artifact === 'run_results');
  const fromRun = run ? Date.parse(run.started_at) : NaN;
  // Under `dbtattic run`, an artifact the command wrote is newer than the command.
  if (run && (newest.modifiedMs ?? 0) >= fromRun)
    return { invocationId: newest.invocationId, startedAt: new Date(fromRun), startedFrom: 'run', finished, marker };
  if (run) return null;
  const declared = mine.map((a) => time(a.header.startedAt ?? null)).filter((t) => t > 0);
  if (declared.length > 0)
    return { invocationId: newest.invocationId, startedAt: new Date(Math.min(...declared)), startedFrom: 'invocation_started_at', finished, marker };
  const generated = mine.map((a) => time(a.header.generatedAt)).filter((t) => t > 0);
  if (generated.length === 0) return null;
  return { invocationId: newest.invocationId, startedAt: new Date(Math.min(...generated)), startedFrom: 'generated_at', finished, marker };
}

/** dbt writes generated_at in UTC, with or without a zone (older versions) and with microseconds. */
function time(value: string | null): number {
  if (!value) return 0;
  const iso = /[zZ]|[+-]\d\d:?\d\d$/.test(value) ? value : `${value}Z`;
  const t = Date.parse(iso.replace(/(\.\d{3})\d+/, '$1'));
  return Number.isNaN(t) ? 0 : t;
}

/** On a tie, run_results (written last) names the invocation. */
function rank(a: PresentArtifact): number {
  return a.artifact === 'run_results' ? 2 : a.artifact === 'manifest' ? 1 : 0;
}
