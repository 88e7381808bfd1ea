import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { writeConditionally } from '../../../src/archive/backends/s3/conditional.js';

/**
 * A conditional write (create-only, compare-and-swap) on S3 retries itself (docs/remote-stores.md): a
 * refusal is final unless an earlier attempt's answer was lost and the value shows it landed; a
 * write in flight (409), throttling or a lost answer is tried again; anything else fails.
 */
const status = (code: number | undefined): unknown =>
  code === undefined ? Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' }) : { name: `HTTP${code}`, $metadata: { httpStatusCode: code } };

/** A write whose attempts fail with `answers` in turn (null: accepted), and whose value shows `landed`. */
function attempts(answers: (number | undefined | null)[], landed: boolean | (() => Promise<boolean>) = false, maxAttempts = 5) {
  const sent: number[] = [];
  let looked = 0;
  return {
    sent,
    looks: () => looked,
    attempt: {
      maxAttempts,
      send: async () => {
        sent.push(sent.length);
        const answer = answers[sent.length - 1];
        if (answer !== null) throw status(answer);
      },
      landed: async () => {
        looked++;
        return typeof landed === 'function' ? landed() : landed;
      },
    },
  };
}

beforeEach(() => {
  // No waiting between attempts: the jitter's length is not what these tests are about.
  vi.spyOn(Math, 'random').mockReturnValue(0);
});
afterEach(() => vi.restoreAllMocks());

describe('a conditional write', () => {
  it('is written when the server accepts it, at once', async () => {
    const w = attempts([null]);
    expect(await writeConditionally(w.attempt)).toBe('written');
    expect(w.sent).toHaveLength(1);
    expect(w.looks()).toBe(0);
  });

  it.each([412, 500, 404])('is refused on %i without looking at the value, when no answer was lost', async (code) => {
    const w = attempts([code], true);
    expect(await writeConditionally(w.attempt)).toBe('refused');
    expect(w.sent).toHaveLength(1);
    expect(w.looks()).toBe(0);
  });

  it('tries again while another write is in flight (409), and is refused if that never ends', async () => {
    const later = attempts([409, null]);
    expect(await writeConditionally(later.attempt)).toBe('written');
    expect(later.sent).toHaveLength(2);
    const never = attempts([409, 409, 409], false, 3);
    expect(await writeConditionally(never.attempt)).toBe('refused');
    expect(never.sent).toHaveLength(3);
  });

  it.each([429, 503])('tries again when throttled (%i), without looking at the value, and fails with the last error when it stays so', async (code) => {
    const later = attempts([code, null], true);
    expect(await writeConditionally(later.attempt)).toBe('written');
    expect(later.looks()).toBe(0);
    const always = attempts([code, code], false, 2);
    await expect(writeConditionally(always.attempt)).rejects.toMatchObject({ $metadata: { httpStatusCode: code } });
    expect(always.sent).toHaveLength(2);
  });

  it('whose answer was lost is written if the value shows it landed, without sending again', async () => {
    const w = attempts([undefined, null], true);
    expect(await writeConditionally(w.attempt)).toBe('written');
    expect(w.sent).toHaveLength(1);
  });

  it('whose answer was lost and that did not land is sent again', async () => {
    const w = attempts([undefined, null], false);
    expect(await writeConditionally(w.attempt)).toBe('written');
    expect(w.sent).toHaveLength(2);
    // A look that fails too counts as not landed.
    const failing = attempts([undefined, null], () => Promise.reject(new Error('no answer either')));
    expect(await writeConditionally(failing.attempt)).toBe('written');
    expect(failing.sent).toHaveLength(2);
  });

  it('refused after a lost answer is written when the value is ours (the first attempt landed), else refused', async () => {
    let looks = 0;
    // The look after the lost answer finds nothing yet; the one after the refusal finds the value.
    const ours = attempts([undefined, 412], async () => looks++ > 0);
    expect(await writeConditionally(ours.attempt)).toBe('written');
    const theirs = attempts([undefined, 412], false);
    expect(await writeConditionally(theirs.attempt)).toBe('refused');
    expect(theirs.looks()).toBe(2);
  });

  it('fails at once on any other answer, and with the last error when every attempt lost its answer', async () => {
    const bad = attempts([400]);
    await expect(writeConditionally(bad.attempt)).rejects.toMatchObject({ $metadata: { httpStatusCode: 400 } });
    expect(bad.sent).toHaveLength(1);
    const lost = attempts([undefined, undefined], false, 2);
    await expect(writeConditionally(lost.attempt)).rejects.toMatchObject({ code: 'ECONNRESET' });
    expect(lost.sent).toHaveLength(2);
  });

  it('waits a random while before trying again, at most 50 ms × 2^attempt and at most 2 s', async () => {
    vi.mocked(Math.random).mockReturnValue(0.999);
    const waits: number[] = [];
    vi.spyOn(globalThis, 'setTimeout').mockImplementation(((fn: () => void, ms?: number) => {
      waits.push(ms ?? 0);
      fn();
      return 0 as unknown as NodeJS.Timeout;
    }) as typeof setTimeout);
    const w = attempts([503, 503, 503, 503, 503, 503, 503, null], false, 8);
    expect(await writeConditionally(w.attempt)).toBe('written');
    expect(waits).toEqual([100, 200, 400, 800, 1600, 2000, 2000].map((cap) => cap * 0.999));
  });
});
