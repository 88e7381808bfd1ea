import { describe, expect, it } from 'vitest';
import { sliceLog } from '../../../src/capture/log-slices.js';

const A = '11111111-1111-4111-8111-111111111111';
const B = '22222222-2222-4222-8222-222222222222';
const banner = (id: string): string => `\n\n${'='.repeat(30)} 10:00:00.000001 | ${id} ${'='.repeat(30)}\n`;
const text = (msg: string): string => `10:00:00.000002 [info ] [MainThread]: ${msg}\n`;
const json = (id: string, msg: string): string => `${JSON.stringify({ data: {}, info: { invocation_id: id, msg } })}\n`;

describe('sliceLog', () => {
  it('gives each text invocation its banner, the two empty lines before it and its lines, byte for byte', () => {
    const a = `${banner(A) + text('Running with dbt=1.9.4') + text('Failure in model x\n  boom'.split('\n')[0]!)}  boom\n`;
    const b = banner(B) + text('Running with dbt=1.9.4');
    const slices = sliceLog(Buffer.from(a + b));
    expect(slices.map((s) => [s.invocationId, s.bytes.toString(), s.format])).toEqual([
      [A, a, 'text'],
      [B, b, 'text'],
    ]);
  });

  it('files JSON lines by info.invocation_id, interleaved with text of another invocation', () => {
    const log = banner(A) + text('Running') + json(B, 'one') + text('more of A') + json(B, 'two');
    const slices = new Map(sliceLog(Buffer.from(log)).map((s) => [s.invocationId, s]));
    expect(slices.get(B)!.bytes.toString()).toBe(json(B, 'one') + json(B, 'two'));
    expect(slices.get(B)!.format).toBe('json');
    expect(slices.get(A)!.bytes.toString()).toBe(banner(A) + text('Running') + text('more of A'));
  });

  it('leaves out text lines before any banner (their banner rotated away) and keeps a last line without newline', () => {
    const log = `${text('orphan') + banner(A)}10:00:00.1 [info ] [MainThread]: cut`;
    const slices = sliceLog(Buffer.from(log));
    expect(slices.map((s) => [s.invocationId, s.bytes.toString()])).toEqual([[A, `${banner(A)}10:00:00.1 [info ] [MainThread]: cut`]]);
  });
});
