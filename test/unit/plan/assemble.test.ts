import { describe, expect, it } from 'vitest';
import { selectorWords, type PlanResult } from '../../../src/plan/index.js';

/** Hand-made plans (no store): the words `plan --format selector|exclude` prints for the shell and dbt. */
const planOf = (...nodes: [string, 'build' | 'reuse'][]): PlanResult =>
  ({ nodes: nodes.map(([selector, verdict], i) => ({ unique_id: `model.p.n${i}`, name: selector, selector, verdict })) }) as unknown as PlanResult;

describe('selectorWords', () => {
  it('names each node of the verdict asked for, one word each', () => {
    const plan = planOf(['stg_orders', 'build'], ['customers', 'reuse'], ['p.staging.orders', 'build']);
    expect(selectorWords(plan, 'build')).toEqual(['stg_orders', 'p.staging.orders']);
    expect(selectorWords(plan, 'reuse')).toEqual(['customers']);
  });

  it('refuses a name the shell or dbt would split or expand, rather than select other nodes', () => {
    for (const name of ['stg_flights__ tickets', 'a\tb', 'a,b', 'tag:x', 'orders*', 'what?', 'x[1]', '+orders', 'orders+', '@orders', '2+orders']) {
      const plan = planOf([name, 'build'], ['fine', 'build']);
      expect(() => selectorWords(plan, 'build'), name).toThrow(/cannot be named to dbt in one word: model\.p\.n0/);
      // Only the verdict printed is checked: the reuse list has nothing unsafe.
      expect(selectorWords(plan, 'reuse')).toEqual([]);
    }
  });
});
