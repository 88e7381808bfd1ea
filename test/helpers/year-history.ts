import { advanceBranch, putHandoutRecord, type Backend } from '../../src/archive/index.js';
import { newTimeId } from '../../src/vocab/index.js';
import { file } from './archive-builder.js';

/**
 * A year (2025, UTC) of hourly dbt builds on two lines of history, filed as an import done in
 * one go "today": capture times in an order unrelated to the run times, so only run times can
 * explain what retention keeps. main builds target prod; dev builds target ci, and its last 20
 * runs fail. Ids sort in neither order (the hour is in the middle).
 */
export const HOUR = 3_600_000;
export const YEAR_START = Date.UTC(2025, 0, 1, 0, 30);
export const HOURS = 8760;
export const IMPORTED_AT = Date.UTC(2026, 5, 1);

export interface Run {
  id: string;
  branch: 'main' | 'dev';
  hour: number;
  ranAt: string;
  target: string;
  statuses: string[];
}

export function yearRun(branch: 'main' | 'dev', hour: number): Run {
  const failing = branch === 'dev' && hour >= HOURS - 20;
  return {
    id: `${branch === 'main' ? 'a' : 'b'}${String((hour * 7919) % 10007).padStart(5, '0')}-${String(hour).padStart(4, '0')}`,
    branch,
    hour,
    ranAt: new Date(YEAR_START + hour * HOUR).toISOString(),
    target: branch === 'main' ? 'prod' : 'ci',
    statuses: failing ? ['success', 'error'] : ['success', 'success'],
  };
}

export function yearRuns(): Run[] {
  return (['main', 'dev'] as const).flatMap((branch) => Array.from({ length: HOURS }, (_, hour) => yearRun(branch, hour)));
}

/** Files every run; a fixed shuffle decides the capture order. */
export async function fileYear(backend: Backend, runs: readonly Run[]): Promise<void> {
  const order = runs.map((run, i) => ({ run, key: (i * 2654435761) % 4294967296 })).sort((a, b) => a.key - b.key);
  for (const [i, { run }] of order.entries()) {
    await file(backend, {
      invocationId: run.id,
      command: 'build',
      target: run.target,
      statuses: run.statuses,
      generatedAt: run.ranAt,
      capturedAt: new Date(IMPORTED_AT + i).toISOString(),
      branch: run.branch,
    });
  }
}

/** main's head names a run from the middle of the year (as a `branch create` base would). */
export async function pinHead(backend: Backend, branch: string, run: Run): Promise<void> {
  await advanceBranch(backend, branch, newTimeId(new Date(IMPORTED_AT + 10_000_000)), run.id, new Date(IMPORTED_AT));
}

export async function handOut(backend: Backend, run: Run, at: Date): Promise<void> {
  await putHandoutRecord(backend, { handout_id: newTimeId(at), invocation_id: run.id, by: 'state', at: at.toISOString() });
}

/**
 * The hours `--keep-last 10 --keep-daily 7 --keep-monthly 12` keeps on one line of a year of
 * hourly runs, worked out from the calendar, not from the policy code: the 10 newest runs are
 * the last 10 hours of 31 December; the newest of each of the 7 newest days is 23:30 on 25–31
 * December; the newest of each of the 12 newest months is 23:30 on each month's last day.
 */
export function calendarHours(): Set<number> {
  const hourOf = (ms: number): number => (ms - YEAR_START) / HOUR;
  const hours = new Set<number>();
  for (let h = 14; h <= 23; h++) hours.add(hourOf(Date.UTC(2025, 11, 31, h, 30)));
  for (let d = 25; d <= 31; d++) hours.add(hourOf(Date.UTC(2025, 11, d, 23, 30)));
  for (let m = 0; m < 12; m++) hours.add(hourOf(Date.UTC(2025, m + 1, 0, 23, 30)));
  return hours;
}
