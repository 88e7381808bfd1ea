import { statusOf } from './failure.js';

/**
 * How a conditional write ended. The SDK's own retries are off for these writes: on Ceph the
 * loser of a race gets a 500 that a retry would turn into a 412, indistinguishable from a
 * write that landed on the first attempt and then lost its answer. So this loop retries itself.
 * - written: the server accepted it.
 * - refused: the condition failed (412; 500 is Ceph's race loser, 409 AWS's; 404 is AWS's
 *   answer to If-Match on a missing key).
 */
export type ConditionalOutcome = 'written' | 'refused';

export interface ConditionalAttempt {
  /** Sends the write once; throws the SDK's error on failure. */
  send(): Promise<void>;
  /** True when the stored value shows that an earlier attempt of ours landed. */
  landed(): Promise<boolean>;
  maxAttempts: number;
}

export async function writeConditionally(attempt: ConditionalAttempt): Promise<ConditionalOutcome> {
  let lastError: unknown;
  let answerLost = false;
  for (let n = 0; n < attempt.maxAttempts; n++) {
    if (n > 0) await backoff(n);
    try {
      await attempt.send();
      return 'written';
    } catch (error) {
      lastError = error;
      const status = statusOf(error);
      if (status === 412 || status === 500 || status === 404) return answerLost && (await attempt.landed()) ? 'written' : 'refused';
      if (status === 409) continue; // AWS: another conditional write to this key is in flight
      if (status === 429 || status === 503 || status === undefined) {
        // Throttled or no answer: the write may have landed; if so, we are done.
        if (status === undefined) {
          answerLost = true;
          if (await attempt.landed().catch(() => false)) return 'written';
        }
        continue;
      }
      throw error;
    }
  }
  if (statusOf(lastError) === 409) return 'refused';
  throw lastError;
}

/** Full jitter, capped: many runners retrying at once must not stay in step. */
function backoff(attempt: number): Promise<void> {
  const ms = Math.random() * Math.min(2000, 50 * 2 ** attempt);
  return new Promise((resolve) => setTimeout(resolve, ms));
}
