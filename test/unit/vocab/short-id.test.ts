import { describe, expect, it } from 'vitest';
import { resolvePrefix, uniquePrefixes } from '../../../src/vocab/index.js';

describe('unique id prefixes, as git abbreviates', () => {
  it('prints 8 characters where they are unique', () => {
    const ids = ['9ffd269f-f2c5-4d1e-851a-16d619ebf738', 'd5a37256-cb30-40b8-87e9-3a44b3b18577'];
    expect(ids.map(uniquePrefixes(ids))).toEqual(['9ffd269f', 'd5a37256']);
  });

  it('lengthens prefixes that would collide: pre-0.19 content ids and UUIDv7 ids a minute apart', () => {
    const ids = [
      'content-3f2a9c01d2e4b5a6c7d8e9f00112233445566778899aabbccddeeff001122334',
      'content-3f9b0000aaaabbbbccccddddeeeeffff00001111222233334444555566667777',
      '0199a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b',
      '0199a1b2-c3f0-7123-8456-789abcdef012',
      '0199a1b3-0000-7000-8000-000000000000',
    ];
    const short = ids.map(uniquePrefixes(ids));
    expect(short).toEqual(['content-3f2', 'content-3f9', '0199a1b2-c3d', '0199a1b2-c3f', '0199a1b3']);
    for (const [i, prefix] of short.entries()) expect(resolvePrefix(prefix, ids, 'invocation')).toBe(ids[i]);
  });

  it('abbreviates an id outside the set against its neighbours, and never cuts a short id', () => {
    const abbreviate = uniquePrefixes(['abcdefgh-1', 'abcdefgh-2']);
    expect(abbreviate('abcdefgh-3')).toBe('abcdefgh-3');
    expect(abbreviate('abc')).toBe('abc');
  });
});
