import { promises as fs } from 'node:fs';
import path from 'node:path';
import { identityOf } from './stat-cache.js';
import { isAtticError } from '../errors.js';
import { readRegularFile } from './regular-file.js';
import { sliceLog, type LogSlice } from './log-slices.js';

/**
 * dbt.log as dbt leaves it: Python's RotatingFileHandler (10 MB by default, five backups)
 * renames dbt.log to dbt.log.1, .1 to .2, … up to dbt.log.5, so the log in write order is
 * dbt.log.5 … dbt.log.1, dbt.log. An invocation can straddle a rotation: its slice is taken
 * from the files joined in that order.
 */
export const LOG_FILE = 'dbt.log';
const BACKUPS = 5;
/** A rotated log is 10 MB unless configured otherwise; far larger is not a log we should hold in memory. */
const MAX_LOG_FILE_BYTES = 512 * 1024 * 1024;

export function logFiles(logDir: string): string[] {
  const backups = Array.from({ length: BACKUPS }, (_, i) => path.join(logDir, `${LOG_FILE}.${BACKUPS - i}`));
  return [...backups, path.join(logDir, LOG_FILE)];
}

/** The identity of dbt.log (device, inode, size, times), or null when there is none: unchanged means nothing new to slice. */
export async function logIdentity(logDir: string): Promise<string | null> {
  try {
    return identityOf(await fs.stat(path.join(logDir, LOG_FILE), { bigint: true }));
  } catch {
    return null;
  }
}

/** A log file left out, and why. */
export interface SkippedLogFile {
  file: string;
  reason: string;
}

/**
 * Every invocation's slice of the log, oldest rotated file first. A file that is not a log to
 * read (a link to /dev/null, which silences dbt's file log; a FIFO; a directory; one past the
 * bound) is left out and named: the log is one output of a capture, never a reason to lose the
 * artifacts beside it.
 */
export async function readLogSlices(logDir: string): Promise<{ slices: LogSlice[]; skipped: SkippedLogFile[] }> {
  const parts: Buffer[] = [];
  const skipped: SkippedLogFile[] = [];
  for (const file of logFiles(logDir)) {
    try {
      parts.push(await readRegularFile(file, MAX_LOG_FILE_BYTES));
    } catch (error) {
      if ((error as { code?: string }).code === 'ENOENT') continue;
      if (!isAtticError(error)) throw error;
      skipped.push({ file, reason: error.message });
    }
  }
  return { slices: sliceLog(Buffer.concat(parts)), skipped };
}
