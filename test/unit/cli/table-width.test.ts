import { describe, expect, it } from 'vitest';
import { planLayout, tableWidth, type Column } from '../../../src/cli/table-width.js';
import { wrapText, wrapUnits } from '../../../src/cli/wrap-text.js';

const text = (head: string, fit: Partial<Column> = {}): Column => ({ head, kind: 'text', ...fit });
const id = (head: string, fit: Partial<Column> = {}): Column => ({ head, kind: 'id', ...fit });

describe('a table meeting a terminal', () => {
  const columns = [id('invocation'), text('message'), text('git', { drop: 1 })];
  const rows = [['8304d813', 'Compilation Error in model fct_flights: concat_columns is undefined', 'abc1234']];

  it('is left as it is when it fits', () => {
    expect(planLayout(columns, rows, 200)).toEqual({ kind: 'table', shown: [0, 1, 2], widths: [10, 67, 7] });
  });

  it('leaves out the columns it can spare before it wraps any', () => {
    const layout = planLayout(columns, rows, 90);
    expect(layout).toEqual({ kind: 'table', shown: [0, 1], widths: [10, 67] });
  });

  it('then wraps text, never an id, and fits', () => {
    const layout = planLayout(columns, rows, 40);
    expect(layout.kind).toBe('table');
    if (layout.kind !== 'table') return;
    expect(layout.widths[0]).toBe(10);
    expect(tableWidth(layout.widths)).toBeLessThanOrEqual(40);
  });

  it('is shown as records when text would be narrower than its min', () => {
    expect(planLayout([id('invocation'), text('message', { min: 30 })], rows, 40)).toEqual({ kind: 'records' });
  });
});

describe('wrapped text', () => {
  it('breaks between words, and within a word only when it is wider than the line', () => {
    expect(wrapText('relation "bookings_dbt.src_flights__airports" does not exist', 20)).toEqual([
      'relation',
      '"bookings_dbt.src_fl',
      'ights__airports"',
      'does not exist',
    ]);
  });

  it("keeps its own line breaks and a unit's spaces, and never splits a colour", () => {
    expect(wrapText('one\ntwo three', 20)).toEqual(['one', 'two three']);
    expect(wrapUnits(['2 error', '24 success'], 12)).toEqual(['2 error', '24 success']);
    const red = '\u001b[31mabcdef\u001b[39m';
    expect(wrapUnits([red], 3)).toEqual(['\u001b[31mabc', 'def\u001b[39m']);
  });
});
