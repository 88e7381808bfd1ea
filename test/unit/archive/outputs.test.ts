import { describe, expect, it } from 'vitest';
import { MemBackend } from '../../../src/archive/backends/mem.js';
import {
  authoritativeOutput,
  hasOutputRecord,
  listOutputRecordKeys,
  parseOutputRecord,
  putOutputRecord,
  readOutputRecords,
  type OutputRecord,
} from '../../../src/archive/index.js';
import { isAtticError } from '../../../src/errors.js';

/** Output records as docs/archive-format.md lays them out: records/outputs/<invocation_id>/<sql|log>-<sha256>.json. */
const sha = (digit: string): string => digit.repeat(64);
const RECORD: OutputRecord = {
  kind: 'output',
  format: 1,
  output: 'log',
  invocation_id: 'inv1',
  sha256: sha('a'),
  size: 10,
  entries: 2,
  detail: { log_format: 'json' },
  captured_at: '2026-01-02T03:00:00.000Z',
  capture_id: 'c1',
  phase: 'post',
};
const record = (changes: Partial<OutputRecord>): OutputRecord => ({ ...RECORD, ...changes });

describe('output records', () => {
  it('are written once under the invocation, as the JSON of the record', async () => {
    const backend = new MemBackend();
    expect(await putOutputRecord(backend, RECORD)).toBe(true);
    expect(await putOutputRecord(backend, record({ size: 99 }))).toBe(false);
    const key = `records/outputs/inv1/log-${sha('a')}.json`;
    expect(JSON.parse((await backend.get(key))?.toString('utf8') ?? '')).toEqual(RECORD);
    expect(await hasOutputRecord(backend, 'inv1', 'log', sha('a'))).toBe(true);
    expect(await hasOutputRecord(backend, 'inv1', 'sql', sha('a'))).toBe(false);
  });

  it("are listed by key, all or one invocation's (not one whose id merely starts alike)", async () => {
    const backend = new MemBackend();
    await putOutputRecord(backend, RECORD);
    await putOutputRecord(backend, record({ output: 'sql', sha256: sha('b') }));
    await putOutputRecord(backend, record({ invocation_id: 'inv10' }));
    await backend.putIfAbsent('records/outputs/inv1/log-x.json.tmp', Buffer.from('{}'));
    const mine = [`records/outputs/inv1/log-${sha('a')}.json`, `records/outputs/inv1/sql-${sha('b')}.json`];
    expect((await listOutputRecordKeys(backend, 'inv1')).sort()).toEqual(mine);
    expect((await listOutputRecordKeys(backend)).sort()).toEqual([...mine, `records/outputs/inv10/log-${sha('a')}.json`]);
  });

  it('are read oldest capture first, then by object id, handing a damaged one to the caller', async () => {
    const backend = new MemBackend();
    const late = record({ sha256: sha('a'), captured_at: '2026-01-03T00:00:00.000Z' });
    const earlyB = record({ sha256: sha('c') });
    const earlyA = record({ sha256: sha('b') });
    for (const r of [late, earlyB, earlyA]) await putOutputRecord(backend, r);
    const damagedKey = `records/outputs/inv1/log-${sha('d')}.json`;
    await backend.putIfAbsent(damagedKey, Buffer.from('{"kind":'));
    const damaged: string[] = [];
    const keys = await listOutputRecordKeys(backend);
    const read = await readOutputRecords(backend, keys, (damage) => void damaged.push(damage.key));
    expect(read.map((r) => r.sha256)).toEqual([sha('b'), sha('c'), sha('a')]);
    expect(damaged).toEqual([damagedKey]);
  });
});

describe('the output that counts', () => {
  it('is the largest log slice (a later capture may have lost its head to rotation), then the later capture', () => {
    const big = record({ size: 20, captured_at: '2026-01-01T00:00:00.000Z' });
    const small = record({ size: 5, captured_at: '2026-01-05T00:00:00.000Z' });
    expect(authoritativeOutput([big, small], 'log')).toBe(big);
    expect(authoritativeOutput([small, big], 'log')).toBe(big);
    const sameSizeLater = record({ size: 20, captured_at: '2026-01-02T00:00:00.000Z', sha256: sha('0') });
    expect(authoritativeOutput([big, sameSizeLater], 'log')).toBe(sameSizeLater);
    expect(authoritativeOutput([sameSizeLater, big], 'log')).toBe(sameSizeLater);
  });

  it("is the newest capture's SQL tree whatever its size, ties going to the greater object id", () => {
    const older = record({ output: 'sql', size: 900, captured_at: '2026-01-01T00:00:00.000Z' });
    const newer = record({ output: 'sql', size: 1, captured_at: '2026-01-02T00:00:00.000Z', sha256: sha('0') });
    const twin = record({ output: 'sql', size: 1, captured_at: '2026-01-02T00:00:00.000Z', sha256: sha('f') });
    expect(authoritativeOutput([older, newer], 'sql')).toBe(newer);
    expect(authoritativeOutput([newer, older], 'sql')).toBe(newer);
    expect(authoritativeOutput([newer, twin], 'sql')).toBe(twin);
    expect(authoritativeOutput([twin, newer], 'sql')).toBe(twin);
  });

  it('is of the kind asked for, and none when there is none', () => {
    const log = record({ size: 1000 });
    const sql = record({ output: 'sql', size: 1 });
    expect(authoritativeOutput([log, sql], 'sql')).toBe(sql);
    expect(authoritativeOutput([sql], 'log')).toBeNull();
    expect(authoritativeOutput([], 'sql')).toBeNull();
  });
});

describe('parseOutputRecord', () => {
  const bytes = (value: unknown): Buffer => Buffer.from(JSON.stringify(value));
  const refusal = (text: Buffer): { code: string; message: string } => {
    try {
      parseOutputRecord('records/outputs/k.json', text);
    } catch (error) {
      if (isAtticError(error)) return { code: error.code, message: error.message };
      throw error;
    }
    throw new Error('expected a refusal');
  };

  it('reads every field of a record as written', () => {
    expect(parseOutputRecord('k', bytes(RECORD))).toEqual(RECORD);
    const { detail: _detail, ...noDetail } = RECORD;
    expect(parseOutputRecord('k', bytes({ ...noDetail, detail: 'text' })).detail).toEqual({});
    expect(parseOutputRecord('k', bytes(noDetail)).detail).toEqual({});
  });

  it('calls the record damaged, naming the key, the fault and verify', () => {
    const cases: [unknown, string][] = [
      [{ ...RECORD, kind: 'artifact' }, 'it is not an output record'],
      [{ ...RECORD, output: 'html' }, 'it is not an output record'],
      [{ ...RECORD, phase: 'later' }, "unknown phase 'later'"],
      [{ ...RECORD, invocation_id: 1 }, "'invocation_id' is not a string"],
      [{ ...RECORD, size: '10' }, "'size' is not a number"],
      [{ ...RECORD, entries: null }, "'entries' is not a number"],
      [{ ...RECORD, captured_at: 5 }, "'captured_at' is not a string"],
    ];
    for (const [value, why] of cases) {
      expect(refusal(bytes(value))).toEqual({
        code: 'archive-damaged',
        message: `Record records/outputs/k.json is unreadable: ${why}. Run 'dbtattic verify'.`,
      });
    }
    expect(refusal(Buffer.from('{"kind"')).message).toBe("Record records/outputs/k.json is unreadable: it is not valid JSON. Run 'dbtattic verify'.");
    let thrown: unknown;
    try {
      parseOutputRecord('records/outputs/k.json', Buffer.from('[]'));
    } catch (error) {
      thrown = error;
    }
    expect(isAtticError(thrown) && thrown.details).toEqual({ key: 'records/outputs/k.json' });
  });
});
