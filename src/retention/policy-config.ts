import { AtticError } from '../errors.js';
import { nearestName } from '../vocab/index.js';
import { EMPTY_POLICY, isEmptyPolicy, parseCount, type KeepPolicy } from './policy.js';
import { parseDuration } from '../vocab/index.js';

/**
 * Where a policy comes from: `--keep-*` flags when any is given (they replace the file's, as a
 * command line replaces a default), else `retention:` in dbtattic.yml:
 *   retention: { keep_last: 10, keep_daily: 7, keep_monthly: 12, keep_within: 30d, prune_grace: 1h }
 */
export interface KeepFlags {
  keepLast?: string;
  keepHourly?: string;
  keepDaily?: string;
  keepWeekly?: string;
  keepMonthly?: string;
  keepYearly?: string;
  keepWithin?: string;
}

export const RETENTION_KEYS = ['keep_last', 'keep_hourly', 'keep_daily', 'keep_weekly', 'keep_monthly', 'keep_yearly', 'keep_within', 'prune_grace'] as const;

const COUNT_FIELDS = [
  ['last', 'keepLast', 'keep_last'],
  ['hourly', 'keepHourly', 'keep_hourly'],
  ['daily', 'keepDaily', 'keep_daily'],
  ['weekly', 'keepWeekly', 'keep_weekly'],
  ['monthly', 'keepMonthly', 'keep_monthly'],
  ['yearly', 'keepYearly', 'keep_yearly'],
] as const;

export interface ResolvedPolicy {
  policy: KeepPolicy;
  source: 'flags' | 'dbtattic.yml';
}

/** The policy to apply; refuses to run without one, since forgetting by accident cannot be undone. */
export function resolvePolicy(flags: KeepFlags, raw: unknown): ResolvedPolicy {
  if (COUNT_FIELDS.some(([, flag]) => flags[flag] !== undefined) || flags.keepWithin !== undefined) {
    return checked({
      policy: policyOf(
        (f) => flags[f[1]],
        flags.keepWithin,
        (f) => `--${f[2].replace('_', '-')}`,
      ),
      source: 'flags',
    });
  }
  const mapping = retentionMapping(raw);
  const within = mapping.keep_within === undefined ? undefined : String(mapping.keep_within);
  return checked({
    policy: policyOf(
      (f) => mapping[f[2]],
      within,
      (f) => `retention.${f[2]}`,
    ),
    source: 'dbtattic.yml',
  });
}

function policyOf(
  value: (field: (typeof COUNT_FIELDS)[number]) => unknown,
  within: string | undefined,
  name: (field: (typeof COUNT_FIELDS)[number]) => string,
): KeepPolicy {
  const policy: KeepPolicy = { ...EMPTY_POLICY };
  for (const field of COUNT_FIELDS) {
    const raw = value(field);
    if (raw !== undefined) policy[field[0]] = parseCount(raw, name(field));
  }
  if (within !== undefined) policy.withinMs = parseDuration(within, 'keep-within');
  return policy;
}

function checked(resolved: ResolvedPolicy): ResolvedPolicy {
  if (!isEmptyPolicy(resolved.policy)) return resolved;
  throw new AtticError(
    'usage',
    'No retention policy: forget would keep nothing but the protected invocations. Give one with --keep-last, --keep-hourly, --keep-daily, --keep-weekly, --keep-monthly, --keep-yearly or --keep-within, or under retention: in dbtattic.yml (keep_last: 10, keep_daily: 7, …).',
  );
}

/** How old an unreferenced object must be before prune deletes it: `prune_grace`, default an hour. */
export function resolvePruneGrace(flag: string | undefined, raw: unknown): number {
  if (flag !== undefined) return flag === '0' ? 0 : parseDuration(flag, '--grace');
  const value = retentionMapping(raw).prune_grace;
  if (value === undefined) return DEFAULT_PRUNE_GRACE_MS;
  return String(value) === '0' ? 0 : parseDuration(String(value), 'retention.prune_grace');
}

export const DEFAULT_PRUNE_GRACE_MS = 3_600_000;

export function hasConfiguredPolicy(raw: unknown): boolean {
  const mapping = retentionMapping(raw);
  return RETENTION_KEYS.some((key) => key !== 'prune_grace' && mapping[key] !== undefined);
}

function retentionMapping(raw: unknown): Record<string, unknown> {
  if (raw === undefined || raw === null) return {};
  if (typeof raw !== 'object' || Array.isArray(raw))
    throw new AtticError('config', 'retention: in dbtattic.yml must be a mapping (keep_last: 10, keep_daily: 7, …).');
  const mapping = raw as Record<string, unknown>;
  const unknown = Object.keys(mapping).find((key) => !(RETENTION_KEYS as readonly string[]).includes(key));
  if (unknown !== undefined) {
    const nearest = nearestName(unknown, RETENTION_KEYS);
    throw new AtticError(
      'config',
      `'${unknown}' under retention: is not a retention setting${nearest ? `; did you mean '${nearest}'?` : '.'} They are: ${RETENTION_KEYS.join(', ')}.`,
    );
  }
  return mapping;
}
