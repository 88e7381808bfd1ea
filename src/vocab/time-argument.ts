import { AtticError } from '../errors.js';
import { durationMs } from './duration.js';

/**
 * A time a user types (`--at`, `--since`, `--until`) in any ISO-8601 form: calendar, week or
 * ordinal dates, basic or extended, with or without a time, a fraction (`.` or `,`) and an
 * offset. Without an offset it is UTC, as dbtattic prints times. A time names an instant; a date
 * alone (or a month, or a week) names a span, so `--until 2026-01-31` takes in that whole day.
 * Relative times are read against `now`: `7d` (or `7d ago`) the instant seven days before,
 * `today` and `yesterday` their UTC days.
 */
export interface TimeSpan {
  /** The first instant the text names, in milliseconds since the epoch. */
  start: number;
  /** The first instant after it: equal to start for a time of day, the next day for a date. */
  end: number;
}

const DAY_MS = 86_400_000;

export function parseTimeArgument(text: string, now = Date.now()): TimeSpan {
  const trimmed = text.trim();
  const relative = relativeSpan(trimmed.toLowerCase(), now);
  if (relative) return relative;
  const split = /^([^T ]+)(?:[T ](.+))?$/i.exec(trimmed);
  const date = split ? parseDate(split[1]!) : null;
  if (!date) throw notATime(text);
  if (split![2] === undefined) return date;
  const time = parseTimeOfDay(split![2]);
  if (time === null) throw notATime(text);
  const instant = date.start + time;
  return { start: instant, end: instant };
}

/** The instant a span begins, as DuckDB reads it (`--since`, and `--at` of a time). */
export function spanStartIso(span: TimeSpan): string {
  return new Date(span.start).toISOString();
}

/**
 * The last microsecond (the store's precision) the span covers (`--until`, `--at`): a date alone
 * runs to its end.
 */
export function spanLastIso(span: TimeSpan): string {
  if (span.end === span.start) return new Date(span.start).toISOString();
  return new Date(span.end - 1).toISOString().replace(/Z$/, '999Z');
}

function notATime(text: string): AtticError {
  return new AtticError(
    'usage',
    `'${text}' is not a time: use ISO 8601, e.g. 2026-01-31, 2026-01-31T12:00Z or 2026-01-31T14:00+02:00, or a time back from now: 12h, 7d, 2w, today, yesterday.`,
  );
}

function relativeSpan(text: string, now: number): TimeSpan | null {
  const today = Math.floor(now / DAY_MS) * DAY_MS;
  if (text === 'today') return { start: today, end: today + DAY_MS };
  if (text === 'yesterday') return { start: today - DAY_MS, end: today };
  const ago = durationMs(text.replace(/\s*ago$/, ''));
  return ago === null ? null : { start: now - ago, end: now - ago };
}

/** The span of a calendar, week or ordinal date, of a month, or null. */
function parseDate(text: string): TimeSpan | null {
  let m = /^(\d{4})-?(\d{2})-?(\d{2})$/.exec(text);
  if (m) return calendarDay(Number(m[1]), Number(m[2]), Number(m[3]));
  m = /^(\d{4})-(\d{2})$/.exec(text);
  if (m && Number(m[2]) >= 1 && Number(m[2]) <= 12) {
    return { start: Date.UTC(Number(m[1]), Number(m[2]) - 1, 1), end: Date.UTC(Number(m[1]), Number(m[2]), 1) };
  }
  m = /^(\d{4})-?W(\d{2})(?:-?([1-7]))?$/i.exec(text);
  if (m) return weekDate(Number(m[1]), Number(m[2]), m[3] === undefined ? null : Number(m[3]));
  m = /^(\d{4})-?(\d{3})$/.exec(text);
  if (m) return ordinalDay(Number(m[1]), Number(m[2]));
  return null;
}

function calendarDay(year: number, month: number, day: number): TimeSpan | null {
  const start = Date.UTC(year, month - 1, day);
  const back = new Date(start);
  if (back.getUTCMonth() !== month - 1 || back.getUTCDate() !== day) return null;
  return { start, end: start + DAY_MS };
}

function ordinalDay(year: number, day: number): TimeSpan | null {
  const start = Date.UTC(year, 0, day);
  if (day < 1 || new Date(start).getUTCFullYear() !== year) return null;
  return { start, end: start + DAY_MS };
}

/** ISO weeks start on Monday; week 1 is the one holding January 4th. */
function weekDate(year: number, week: number, weekday: number | null): TimeSpan | null {
  const jan4 = Date.UTC(year, 0, 4);
  const week1Monday = jan4 - ((new Date(jan4).getUTCDay() + 6) % 7) * DAY_MS;
  const weeksInYear = weekOfYearCount(year);
  if (week < 1 || week > weeksInYear) return null;
  const monday = week1Monday + (week - 1) * 7 * DAY_MS;
  if (weekday === null) return { start: monday, end: monday + 7 * DAY_MS };
  const start = monday + (weekday - 1) * DAY_MS;
  return { start, end: start + DAY_MS };
}

/** 53 when the year starts on a Thursday, or is a leap year starting on a Wednesday. */
function weekOfYearCount(year: number): number {
  const jan1 = new Date(Date.UTC(year, 0, 1)).getUTCDay();
  const leap = new Date(Date.UTC(year, 1, 29)).getUTCDate() === 29;
  return jan1 === 4 || (leap && jan1 === 3) ? 53 : 52;
}

/** Milliseconds after the date's UTC midnight that a time of day with its offset names, or null. */
function parseTimeOfDay(text: string): number | null {
  const zone = /(Z|[+-]\d{2}(?::?\d{2})?)$/i.exec(text);
  const clock = zone ? text.slice(0, zone.index) : text;
  const m = /^(\d{2})(?::?(\d{2})(?::?(\d{2}))?)?(?:[.,](\d+))?$/.exec(clock);
  if (!m) return null;
  const [hours, minutes, seconds] = [Number(m[1]), Number(m[2] ?? 0), Number(m[3] ?? 0)];
  const fraction = m[4] === undefined ? 0 : Number(`0.${m[4]}`);
  // The fraction belongs to the smallest unit written: 12.5 is 12:30, 12:00.5 is 12:00:30.
  const unitMs = m[3] !== undefined ? 1000 : m[2] !== undefined ? 60_000 : 3_600_000;
  const endOfDay = hours === 24 && minutes === 0 && seconds === 0 && fraction === 0;
  if ((hours > 23 && !endOfDay) || minutes > 59 || seconds > 60) return null;
  const local = hours * 3_600_000 + minutes * 60_000 + Math.min(seconds, 59.999) * 1000 + Math.round(fraction * unitMs);
  return local - offsetMs(zone?.[1] ?? 'Z');
}

function offsetMs(zone: string): number {
  if (zone.toUpperCase() === 'Z') return 0;
  const digits = zone.slice(1).replace(':', '');
  const minutes = Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2) || '0');
  return (zone.startsWith('-') ? -1 : 1) * minutes * 60_000;
}
