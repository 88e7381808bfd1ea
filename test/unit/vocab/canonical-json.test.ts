import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalJson } from '../../../src/vocab/index.js';

/**
 * Node and macro version ids are hashes of canonicalJson, so its bytes must never change: they
 * are JSON.stringify of a copy whose keys were inserted in sorted order (the rule before it was
 * written directly), integer-like keys included, which every JS object enumerates first. Keys
 * are own properties, as JSON.parse makes them: a `__proto__` key (fast-check draws one now and
 * then) is a member, not the copy's prototype.
 */
function sortedCopy(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortedCopy);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.keys(value)
      .sort()
      .map((key) => [key, sortedCopy((value as Record<string, unknown>)[key])]),
  );
}

const reference = (value: unknown): string => JSON.stringify(sortedCopy(value));

describe('canonicalJson', () => {
  it('is JSON.stringify of a sorted copy, for any JSON-like value', () => {
    const key = fc.oneof(fc.string(), fc.constantFrom('0', '1', '2', '9', '10', '01', '-1', '4294967294', '4294967295', 'a', 'B', '_'));
    const value = fc.letrec((tie) => ({
      leaf: fc.oneof(fc.string(), fc.double(), fc.integer(), fc.boolean(), fc.constant(null), fc.constant(undefined)),
      node: fc.oneof({ depthSize: 'small' }, tie('leaf'), fc.array(tie('node'), { maxLength: 4 }), fc.dictionary(key, tie('node'), { maxKeys: 6 })),
    })).node;
    fc.assert(
      fc.property(value, (v) => {
        expect(canonicalJson(v)).toBe(reference(v));
      }),
      { numRuns: 2000 },
    );
  });

  it('orders integer-like keys numerically, before the others', () => {
    expect(canonicalJson({ b: 1, 10: 2, a: { 9: 3, '01': 4 }, 2: [undefined, -0, Number.NaN] })).toBe('{"2":[null,0,null],"10":2,"a":{"9":3,"01":4},"b":1}');
  });
});
