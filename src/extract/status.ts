import { canonicalJson } from '../vocab/index.js';
import { num, str } from './fields.js';

/**
 * One vocabulary of result statuses across dbt versions, lower case:
 * - dbt 0.19+ writes them (success, error, skipped, pass, fail, warn, runtime error; no-op in
 *   1.10, partial success in 1.9, reused in 1.12). Fusion capitalises some ("Pass", "Warn").
 * - dbt before 0.19 had no status: `status` held the adapter's message ("CREATE VIEW",
 *   "SUCCESS 1"), a test's failure count (0.0) or null, beside `error`, `fail`, `warn`, `skip`.
 */
export const KNOWN_STATUSES = ['success', 'error', 'skipped', 'pass', 'fail', 'warn', 'runtime error', 'no-op', 'reused', 'partial success'] as const;
export type KnownStatus = (typeof KNOWN_STATUSES)[number];

const ALIASES: Record<string, KnownStatus> = {
  noop: 'no-op',
  no_op: 'no-op',
  runtime_error: 'runtime error',
  runtimeerror: 'runtime error',
  partial_success: 'partial success',
  partialsuccess: 'partial success',
};

/**
 * A status written by dbt 0.19 or later, lower-cased. One we do not know is kept (lower case)
 * rather than guessed at: dbt adds statuses (no-op, reused) and they should show up as written.
 */
export function normaliseStatus(raw: unknown): string | null {
  const status = str(raw)?.trim().toLowerCase();
  if (!status) return null;
  return ALIASES[status] ?? ALIASES[status.replace(/[\s-]+/g, '_')] ?? status;
}

/** The fields of a result from dbt before 0.19 that together say how it ended. */
export interface LegacyResult {
  status: unknown;
  error: unknown;
  fail: unknown;
  warn: unknown;
  skip: unknown;
  /** Tests counted failures where models had a message; 0.19 calls them pass/fail/warn. */
  isTest: boolean;
}

export interface LegacyOutcome {
  status: KnownStatus;
  message: string | null;
  failures: number | null;
}

/**
 * Maps a pre-0.19 result to the 0.19 vocabulary: error when `error` is set, skipped when
 * skipped, a test's outcome from fail/warn or its failure count, otherwise success. The adapter
 * message that sat in `status` moves to `message`.
 */
export function normaliseLegacyResult(result: LegacyResult): LegacyOutcome {
  const error = str(result.error);
  const adapterMessage = str(result.status);
  const failures = result.isTest ? num(result.status) : null;
  const message = error ?? adapterMessage;
  if (error !== null) return { status: 'error', message, failures };
  if (result.skip === true) return { status: 'skipped', message, failures };
  if (!result.isTest) return { status: 'success', message, failures };
  if (result.fail === true) return { status: 'fail', message, failures };
  if (result.warn === true) return { status: 'warn', message, failures };
  return { status: failures !== null && failures > 0 ? 'fail' : 'pass', message, failures };
}

/** Results by status as JSON, {"error": 1, "success": 12}, keys sorted; a null status counts as "unknown". */
export function countStatuses(rows: readonly { status: string | null }[]): string {
  const counts: Record<string, number> = {};
  for (const row of rows) {
    const status = row.status ?? 'unknown';
    counts[status] = (counts[status] ?? 0) + 1;
  }
  return canonicalJson(counts);
}
