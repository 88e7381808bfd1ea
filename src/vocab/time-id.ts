import { randomBytes } from 'node:crypto';

/**
 * A time-ordered id: 13 hex digits of milliseconds since the epoch, then 12 random hex digits.
 * Sorting the strings sorts by time, and two writers in the same millisecond do not collide.
 */
export function newTimeId(now: Date = new Date()): string {
  const millis = now.getTime().toString(16).padStart(13, '0');
  return `${millis}-${randomBytes(6).toString('hex')}`;
}

export function timeOfTimeId(id: string): Date | undefined {
  const millis = Number.parseInt(id.slice(0, 13), 16);
  return Number.isFinite(millis) ? new Date(millis) : undefined;
}
