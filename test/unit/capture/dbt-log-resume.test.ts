import { appendFileSync, mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { readLogSlices, type LogRead } from '../../../src/capture/dbt-log.js';

/**
 * A capture reads dbt.log from the newest invocation its last read found, not whole: the slices
 * it gives must be those a whole read gives from there on, through rotations, rewrites and
 * JSON lines of an invocation begun before.
 */
const id = (n: number): string => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
const banner = (n: number): string => `\n\n${'='.repeat(30)} 10:00:00.000001 | ${id(n)} ${'='.repeat(30)}\n`;
const text = (msg: string): string => `10:00:00.000002 [info ] [MainThread]: ${msg}\n`;
const json = (n: number, msg: string): string => `${JSON.stringify({ data: {}, info: { invocation_id: id(n), msg } })}\n`;
const invocation = (n: number, lines = 3): string => banner(n) + Array.from({ length: lines }, (_, i) => text(`line ${i} of ${n}`)).join('');

const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })));
function logDir(): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'attic-log-'));
  dirs.push(dir);
  return dir;
}

const asMap = (read: LogRead): Map<string, string> => new Map(read.slices.map((s) => [s.invocationId, s.bytes.toString()]));

/** The tail read must agree with a whole read on every invocation it gives, and give every one from the resume point on. */
async function expectTailAgrees(dir: string, resumed: LogRead, newest: number[]): Promise<void> {
  const whole = asMap(await readLogSlices(dir));
  const tail = asMap(resumed);
  for (const [invocationId, bytes] of tail) expect(bytes, invocationId).toBe(whole.get(invocationId));
  for (const n of newest) expect(tail.get(id(n)), id(n)).toBe(whole.get(id(n)));
}

describe('readLogSlices from where the last read left off', () => {
  it('reads only from the newest invocation on, and its slices are those of a whole read, also one still being written', async () => {
    const dir = logDir();
    const log = path.join(dir, 'dbt.log');
    writeFileSync(log, invocation(1) + invocation(2) + invocation(3, 1));
    const first = await readLogSlices(dir);
    expect(first.slices.map((s) => s.invocationId)).toEqual([id(1), id(2), id(3)]);

    appendFileSync(log, text('more of 3') + invocation(4) + invocation(5));
    const second = await readLogSlices(dir, first.resume);
    expect(second.slices.map((s) => s.invocationId)).toEqual([id(3), id(4), id(5)]);
    await expectTailAgrees(dir, second, [3, 4, 5]);

    const third = await readLogSlices(dir, second.resume);
    expect(third.slices.map((s) => s.invocationId)).toEqual([id(5)]);
  });

  it('follows dbt.log through a rotation to dbt.log.1, an invocation straddling it included', async () => {
    const dir = logDir();
    const log = path.join(dir, 'dbt.log');
    writeFileSync(log, invocation(1) + invocation(2, 1));
    const first = await readLogSlices(dir);
    appendFileSync(log, text('before the rotation'));
    renameSync(log, path.join(dir, 'dbt.log.1'));
    writeFileSync(log, text('after the rotation') + invocation(3));
    const second = await readLogSlices(dir, first.resume);
    expect(second.slices.map((s) => s.invocationId)).toEqual([id(2), id(3)]);
    expect(second.slices[0]!.bytes.toString()).toBe(invocation(2, 1) + text('before the rotation') + text('after the rotation'));
    await expectTailAgrees(dir, second, [2, 3]);
  });

  it('reads whole when the place is gone: the file rewritten, or rotated away', async () => {
    const dir = logDir();
    const log = path.join(dir, 'dbt.log');
    writeFileSync(log, invocation(1) + invocation(2));
    const first = await readLogSlices(dir);
    writeFileSync(log, invocation(7) + invocation(8) + invocation(9));
    expect((await readLogSlices(dir, first.resume)).slices.map((s) => s.invocationId)).toEqual([id(7), id(8), id(9)]);

    const again = await readLogSlices(dir);
    for (let k = 1; k <= 5; k++) renameSync(k === 1 ? log : path.join(dir, `dbt.log.${k - 1}`), path.join(dir, `dbt.log.${k}`));
    rmSync(path.join(dir, 'dbt.log.5'));
    writeFileSync(log, invocation(10));
    expect((await readLogSlices(dir, again.resume)).slices.map((s) => s.invocationId)).toEqual([id(10)]);
  });

  it('reads whole when the tail holds JSON lines, which may belong to an invocation begun before it', async () => {
    const dir = logDir();
    const log = path.join(dir, 'dbt.log');
    writeFileSync(log, json(1, 'one') + invocation(2));
    const first = await readLogSlices(dir);
    appendFileSync(log, json(1, 'two') + invocation(3));
    const second = await readLogSlices(dir, first.resume);
    expect(asMap(second).get(id(1))).toBe(json(1, 'one') + json(1, 'two'));
    expect(second.slices.map((s) => s.invocationId).sort()).toEqual([id(1), id(2), id(3)]);
  });
});
