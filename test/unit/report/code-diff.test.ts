import { describe, expect, it } from 'vitest';
import { codeDiff } from '../../../src/report/code-diff.js';

describe('codeDiff', () => {
  it('shows a replaced line as removed then added, with three lines of context and the rest summarised', () => {
    const before = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i'].join('\n');
    const after = ['a', 'b', 'c', 'd', 'E', 'f', 'g', 'h', 'i'].join('\n');
    expect(codeDiff(before, after)).toEqual([
      ['@', '1 unchanged line'],
      [' ', 'b'],
      [' ', 'c'],
      [' ', 'd'],
      ['-', 'e'],
      ['+', 'E'],
      [' ', 'f'],
      [' ', 'g'],
      [' ', 'h'],
      ['@', '1 unchanged line'],
    ]);
  });

  it('is null when the code is the same, and shows a new node as added lines', () => {
    expect(codeDiff('select 1', 'select 1')).toBeNull();
    expect(codeDiff(null, 'select 1')).toEqual([['+', 'select 1']]);
  });
});
