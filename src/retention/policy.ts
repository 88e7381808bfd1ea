import { AtticError } from '../errors.js';
import { formatDurationShort } from '../vocab/index.js';

/**
 * A keep policy with restic's vocabulary and meanings (`restic forget`): the union of
 * - last N: the N newest invocations;
 * - hourly/daily/weekly/monthly/yearly N: the newest invocation of each of the N newest
 *   hours/days/ISO weeks/months/years that have one (periods without a run do not count);
 * - within D: every invocation that ran less than D before the newest one.
 * Periods are read in UTC, as dbtattic prints times. Pure: no archive, no clock.
 */
export interface KeepPolicy {
  last: number;
  hourly: number;
  daily: number;
  weekly: number;
  monthly: number;
  yearly: number;
  /** Milliseconds; 0 for none. */
  withinMs: number;
}

export const EMPTY_POLICY: KeepPolicy = { last: 0, hourly: 0, daily: 0, weekly: 0, monthly: 0, yearly: 0, withinMs: 0 };

export type PeriodRule = 'hourly' | 'daily' | 'weekly' | 'monthly' | 'yearly';
const PERIOD_RULES: readonly PeriodRule[] = ['hourly', 'daily', 'weekly', 'monthly', 'yearly'];

/** Why the policy keeps an invocation: `last`, `within`, or a period rule. */
export type PolicyReason = 'last' | 'within' | PeriodRule;

export interface Dated {
  id: string;
  /** When dbt ran it, in epoch milliseconds. */
  ranAtMs: number;
}

export function isEmptyPolicy(policy: KeepPolicy): boolean {
  return Object.values(policy).every((n) => n === 0);
}

/** The reasons the policy keeps each invocation of one line (branch and target); absent: not kept. */
export function applyPolicy(items: readonly Dated[], policy: KeepPolicy): Map<string, PolicyReason[]> {
  const newestFirst = [...items].sort((a, b) => b.ranAtMs - a.ranAtMs || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0));
  const kept = new Map<string, PolicyReason[]>();
  const keep = (id: string, reason: PolicyReason): void => {
    const reasons = kept.get(id);
    if (reasons) reasons.push(reason);
    else kept.set(id, [reason]);
  };
  newestFirst.slice(0, policy.last).forEach((item) => keep(item.id, 'last'));
  const newest = newestFirst[0]?.ranAtMs;
  if (policy.withinMs > 0 && newest !== undefined) {
    for (const item of newestFirst) if (newest - item.ranAtMs < policy.withinMs) keep(item.id, 'within');
  }
  for (const rule of PERIOD_RULES) {
    let left = policy[rule];
    let lastPeriod: string | undefined;
    for (const item of newestFirst) {
      if (left <= 0) break;
      const period = periodOf(rule, item.ranAtMs);
      if (period === lastPeriod) continue;
      lastPeriod = period;
      left--;
      keep(item.id, rule);
    }
  }
  return kept;
}

/** The period an instant falls in, as a string that differs exactly when the period does. */
export function periodOf(rule: PeriodRule, ms: number): string {
  const iso = new Date(ms).toISOString();
  switch (rule) {
    case 'hourly':
      return iso.slice(0, 13);
    case 'daily':
      return iso.slice(0, 10);
    case 'weekly':
      return isoWeek(ms);
    case 'monthly':
      return iso.slice(0, 7);
    case 'yearly':
      return iso.slice(0, 4);
  }
}

/** ISO 8601 week, as restic's: the week belongs to the year holding its Thursday. */
function isoWeek(ms: number): string {
  const day = new Date(ms);
  const weekday = (day.getUTCDay() + 6) % 7;
  const thursday = Date.UTC(day.getUTCFullYear(), day.getUTCMonth(), day.getUTCDate() - weekday + 3);
  const year = new Date(thursday).getUTCFullYear();
  const week = Math.floor((thursday - Date.UTC(year, 0, 1)) / (7 * 86_400_000)) + 1;
  return `${year}-W${String(week).padStart(2, '0')}`;
}

export function parseCount(value: unknown, what: string): number {
  const n = typeof value === 'number' ? value : typeof value === 'string' && /^\d+$/.test(value.trim()) ? Number(value) : NaN;
  if (!Number.isInteger(n) || n < 0) throw new AtticError('usage', `${what} takes a whole number of 0 or more, not '${String(value)}'.`);
  return n;
}

/** One line per rule that keeps something, for messages: `last 10, daily 7, monthly 12`. */
export function describePolicy(policy: KeepPolicy): string {
  const parts = (['last', ...PERIOD_RULES] as const).filter((rule) => policy[rule] > 0).map((rule) => `${rule} ${policy[rule]}`);
  if (policy.withinMs > 0) parts.push(`within ${formatDurationShort(policy.withinMs)}`);
  return parts.join(', ');
}
