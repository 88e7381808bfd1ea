import { describe, expect, it } from 'vitest';
import { planNotices } from '../../../src/plan/notices.js';
import type { Check, NodeVerdict } from '../../../src/plan/index.js';
import type { PlanFacts } from '../../../src/store/index.js';

/** Hand-made verdicts (no store): which builds the freshness notice counts, and when a finished build is named. */
const unchecked = (source: string, old = 'built 2026-01-01T00:00:00.000Z'): Check => ({
  check: `source ${source}`,
  old,
  new: 'no freshness check since the build',
  ok: false,
  reason: 'freshness unknown',
});
const upstream = (id: string): Check => ({ check: `upstream ${id}`, old: null, new: 'build (freshness unknown)', ok: false, reason: 'upstream will build' });
const failing = (reason: Check['reason'], check = 'fingerprint'): Check => ({ check, old: 'a', new: 'b', ok: false, reason });
const verdict = (id: string, checks: Check[]): NodeVerdict => ({
  unique_id: id,
  name: id,
  resource_type: 'model',
  selector: id,
  verdict: checks.some((c) => !c.ok && c.reason) ? 'build' : 'reuse',
  reason: checks.find((c) => !c.ok && c.reason)?.reason ?? 'unchanged',
  from_branch: null,
  last_build: null,
  checks,
});
const facts = (ownRun: PlanFacts['ownRun'] = null): PlanFacts => ({ invocationId: 'inv-1', ownRun }) as PlanFacts;

describe('planNotices', () => {
  it('counts nodes held only by unchecked sources, and those held only by them, once', () => {
    const all = [
      verdict('a', [unchecked('s1')]),
      verdict('b', [upstream('a')]),
      verdict('c', [upstream('a'), failing('code changed')]),
      verdict('d', [failing('freshness unknown', 'declared inputs')]),
      verdict('e', [unchecked('s2', 'build time unknown')]),
      verdict('f', []),
    ];
    const notices = planNotices(facts(), all, all, 'target');
    expect(notices).toHaveLength(1);
    expect(notices[0]!.code).toBe('freshness-unknown');
    expect(notices[0]!.message).toMatch(/^1 node builds only because .*, and 1 more only because of it\. .*dbt source freshness/);
  });

  it('says nothing when no source check blocks reuse', () => {
    const all = [verdict('d', [failing('freshness unknown', 'declared inputs')]), verdict('c', [failing('code changed')])];
    expect(planNotices(facts(), all, all, 'target')).toEqual([]);
  });

  it('names a finished build, with dbt parse only when the manifest is target/s', () => {
    const own = facts({ command: 'build', results: 3 });
    expect(planNotices(own, [], [], 'target')[0]!.message).toContain('run dbt parse');
    expect(planNotices(own, [], [], 'named')[0]!.message).not.toContain('dbt parse');
    expect(planNotices(own, [], [], 'named')[0]!.code).toBe('finished-build');
  });
});
