/**
 * What a plan says: a verdict per node, the reason, and the checks that led to it. The JSON of
 * `plan --json` is exactly a PlanResult, and the archive records one per plan.
 */

/** Why a node must build, in the fixed order in which reasons are tried: the first that applies wins. */
export const BUILD_REASONS = [
  'new',
  'never built on this target',
  'last build failed',
  'code changed',
  'code unknown',
  'config or contract changed',
  'upstream will build',
  'upstream built since',
  'source data newer',
  'freshness unknown',
] as const;
export type BuildReason = (typeof BUILD_REASONS)[number];

/** `within build_after`: inputs changed, but the node's own freshness config says not yet. */
export type ReuseReason = 'unchanged' | 'within build_after';

export type Verdict = 'reuse' | 'build';

/** One test a node passed or failed, with the value at its last build and now. */
export interface Check {
  check: string;
  old: string | null;
  new: string | null;
  ok: boolean;
  /** The reason this check gives when it fails. */
  reason: BuildReason | null;
}

export interface NodeVerdict {
  unique_id: string;
  name: string;
  resource_type: string;
  /** The word `dbt --select` names it by. */
  selector: string;
  verdict: Verdict;
  reason: BuildReason | ReuseReason;
  /** Set when the node reuses the build of the branch the plan defers to. */
  from_branch: string | null;
  last_build: { invocation_id: string; finished_at: string | null } | null;
  checks: Check[];
}

export interface PlanCounts {
  reuse: number;
  build: number;
  by_reason: Record<string, number>;
}

/**
 * What is true of the plan as a whole and no verdict says: `finished-build`, the planned manifest
 * is a build's own, planned against the history before that build ran; `freshness-unknown`,
 * nodes build only because no freshness check proves their sources unchanged.
 */
export interface PlanNotice {
  code: 'finished-build' | 'freshness-unknown';
  message: string;
}

export interface PlanResult {
  format: 1;
  plan_id: string;
  /** The invocation whose manifest was planned (a dbt parse or compile). */
  invocation_id: string;
  made_at: string;
  /** The time build_after is measured to: when that manifest was written. */
  as_of: string | null;
  target: string | null;
  branch: string | null;
  defer_to: string | null;
  select: string[];
  exclude: string[];
  counts: PlanCounts;
  nodes: NodeVerdict[];
  notices: PlanNotice[];
}
