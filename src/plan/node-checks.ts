import type { BuildFact, CurrentNode, PlanFacts, ScopedBuilds } from '../store/index.js';
import { BUILD_SUCCESS_STATUSES } from '../vocab/index.js';
import { checkSource } from './source-check.js';
import type { NodeInputs } from './inputs.js';
import { isoFromMicros } from './time.js';
import type { BuildReason, Check, NodeVerdict } from './types.js';

/**
 * The checks of one node, in the order of the reasons they give. Each compares the node's last
 * successful build (old) with now (new). Pure: everything comes from the facts and the
 * verdicts already given to its parents.
 */
export interface Chosen {
  builds: ScopedBuilds;
  /** The branch whose builds are used when the plan defers; null for the planned branch. */
  fromBranch: string | null;
}

export interface CheckContext {
  facts: PlanFacts;
  chosen: (id: string) => Chosen;
  verdictOf: (id: string) => NodeVerdict | undefined;
  nodeOf: (id: string) => CurrentNode | undefined;
}

const OK_STATUSES: ReadonlySet<string> = new Set(BUILD_SUCCESS_STATUSES);

export function checkNode(node: CurrentNode, inputs: NodeInputs, ctx: CheckContext): Check[] {
  const { builds } = ctx.chosen(node.uniqueId);
  const success = builds.lastSuccess;
  const checks: Check[] = [
    {
      check: 'in an earlier manifest',
      old: ctx.facts.seenBefore.has(node.uniqueId) ? 'yes' : 'no',
      new: 'yes',
      ok: ctx.facts.seenBefore.has(node.uniqueId),
      reason: 'new',
    },
    {
      check: 'last successful build',
      old: success ? describeBuild(success) : 'never',
      new: `target ${ctx.facts.target ?? '(default)'}`,
      ok: success !== null,
      reason: 'never built on this target',
    },
  ];
  if (!success) return checks;
  const attempt = builds.lastAttempt ?? success;
  checks.push({ check: 'last result', old: attempt.status, new: null, ok: OK_STATUSES.has(attempt.status), reason: 'last build failed' });
  checks.push(fingerprintCheck(node, success));
  for (const id of inputs.ephemeral) checks.push(ephemeralCheck(id, success, ctx));
  for (const id of inputs.built) checks.push(upstreamCheck(id, success, ctx));
  for (const id of inputs.sources) {
    const source = ctx.nodeOf(id);
    if (!source) continue;
    checks.push(
      checkSource(source, {
        builtAtUs: success.finishedAtUs,
        buildCatalog: success.catalog,
        currentCatalog: ctx.facts.catalog,
        checks: ctx.facts.freshness.get(id) ?? [],
      }),
    );
  }
  const undeclared = undeclaredInputsCheck(node, inputs);
  if (undeclared) checks.push(undeclared);
  return checks;
}

/** Materializations that keep rows: what they read when they last built is in them. */
const STORING = new Set(['table', 'incremental', 'snapshot']);

/**
 * A model or snapshot that keeps rows but declares nothing it reads (no ref, no source, no
 * seed) reads what no check can see: a table by name (`from raw.orders`), a Python model's
 * session, or nothing at all. Its data may have moved since its build, so its freshness is
 * unknown and it builds (build_after may still hold it). Found beside real dbt: a model reading
 * a raw table no source declares was reused with rows missing.
 */
function undeclaredInputsCheck(node: CurrentNode, inputs: NodeInputs): Check | null {
  if (node.resourceType !== 'model' && node.resourceType !== 'snapshot') return null;
  if (!STORING.has(node.materialization ?? '') || inputs.built.length > 0 || inputs.sources.length > 0) return null;
  return { check: 'declared inputs', old: 'none: no ref, source or seed', new: 'reads data no check can see', ok: false, reason: 'freshness unknown' };
}

function describeBuild(build: BuildFact): string {
  return `${build.invocationId} at ${isoFromMicros(build.finishedAtUs) ?? 'unknown time'}${build.branch ? ` on ${build.branch}` : ''}`;
}

/** A fingerprint covers SQL, called macros, build config and contract; the checksum tells which moved. */
function fingerprintCheck(node: CurrentNode, success: BuildFact): Check {
  const ok = node.fingerprint !== null && node.fingerprint === success.fingerprint;
  const configOnly = !ok && success.fingerprint !== null && node.checksum === success.checksum && node.configKey !== success.configKey;
  return {
    check: 'fingerprint',
    old: success.fingerprint ?? 'unknown',
    new: node.fingerprint ?? 'unknown',
    ok,
    reason: changeReason(success.fingerprint, node.fingerprint, configOnly),
  };
}

/** A side without a fingerprint (a build whose manifest was never captured) says nothing changed: it is unknown, not changed. */
function changeReason(before: string | null, now: string | null, configOnly = false): BuildReason {
  if (before === null || now === null) return 'code unknown';
  return configOnly ? 'config or contract changed' : 'code changed';
}

/** An ephemeral parent's SQL is part of this node's: compare it as this node's build compiled it. */
function ephemeralCheck(id: string, success: BuildFact, ctx: CheckContext): Check {
  const before = ctx.facts.ephemeralAt.get(`${success.invocationId} ${id}`) ?? null;
  const now = ctx.nodeOf(id)?.fingerprint ?? null;
  return {
    check: `ephemeral ${id}`,
    old: before ?? 'unknown',
    new: now ?? 'unknown',
    ok: before !== null && before === now,
    reason: changeReason(before, now),
  };
}

function upstreamCheck(id: string, success: BuildFact, ctx: CheckContext): Check {
  const verdict = ctx.verdictOf(id);
  if (verdict?.verdict === 'build') return { check: `upstream ${id}`, old: null, new: `build (${verdict.reason})`, ok: false, reason: 'upstream will build' };
  const parent = ctx.chosen(id).builds.lastSuccess;
  const mine = success.finishedAtUs;
  const theirs = parent?.finishedAtUs ?? null;
  const ok = mine !== null && theirs !== null && mine > theirs;
  return {
    check: `upstream ${id}`,
    old: `this built ${isoFromMicros(mine) ?? 'at an unknown time'}`,
    new: `it built ${isoFromMicros(theirs) ?? 'at an unknown time'}`,
    ok,
    reason: 'upstream built since',
  };
}
