import { InvalidArgumentError } from '@commander-js/extra-typings';

/** Past 2^31 - 1 a count means nothing here, and DuckDB's BIGINT refused what Number still took. */
const MAX_COUNT = 2_147_483_647;
/** The longest timer Node keeps (2^31 - 1 ms, about 24.8 days); past it, a timer fires at once. */
const MAX_SECONDS = 2_147_483;

export function positiveInt(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n <= 0 || n > MAX_COUNT) throw new InvalidArgumentError(`expected a whole number from 1 to ${MAX_COUNT}.`);
  return n;
}

export function wholeSeconds(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > MAX_SECONDS)
    throw new InvalidArgumentError(`expected a whole number of seconds up to ${MAX_SECONDS} (0: no limit).`);
  return n;
}

export function positiveSeconds(value: string): number {
  const n = wholeSeconds(value);
  if (n === 0) throw new InvalidArgumentError(`expected a whole number of seconds from 1 to ${MAX_SECONDS}.`);
  return n;
}
