import { promises as fs } from 'node:fs';
import path from 'node:path';
import { identityOf } from './stat-cache.js';
import { isAtticError } from '../errors.js';
import { fileIdOf, readRegularFileFrom } from './regular-file.js';
import { sha256 } from '../vocab/index.js';
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
 * Where the next read of the log may start: the newest invocation's first line, as the file
 * that held it (by device and inode, which a rotation keeps) and its offset there, with a hash
 * of the bytes from there to tell a file truncated and written again.
 */
export interface LogResume {
  fileId: string;
  offset: number;
  /** The SHA-256 of the `headBytes` bytes from `offset`. */
  head: string;
  headBytes: number;
}

/** Enough of the newest invocation's first lines (blanks and banner) to recognise them. */
const HEAD_BYTES = 256;

/**
 * Every invocation's slice of the log, oldest rotated file first. A file that is not a log to
 * read (a link to /dev/null, which silences dbt's file log; a FIFO; a directory; one past the
 * bound) is left out and named: the log is one output of a capture, never a reason to lose the
 * artifacts beside it.
 *
 * With `resume`, only the log from the newest invocation the last read found is read: every
 * slice before it was filed then, and a log kept for weeks (six files of 10 MB) was read whole
 * after every dbt command. A text line belongs to the banner above it, so the slices from there
 * on are those of a whole read; a JSON line names its own invocation, which may have begun
 * before (dbt runs side by side): a tail holding one is read again whole.
 */
export async function readLogSlices(logDir: string, resume: LogResume | null = null): Promise<LogRead> {
  const tail = resume ? await readLog(logDir, resume) : null;
  return tail?.slices.every((s) => s.format === 'text') ? tail : (await readLog(logDir, null))!;
}

export interface LogRead {
  slices: LogSlice[];
  skipped: SkippedLogFile[];
  /** Where the next read may start; null when the log holds no invocation. */
  resume: LogResume | null;
}

interface LogPiece {
  fileId: string;
  /** Where the piece starts in its file, and in the bytes sliced. */
  offset: number;
  at: number;
}

/** The log from `resume` (null: whole), or null when `resume` no longer points into it. */
async function readLog(logDir: string, resume: LogResume | null): Promise<LogRead | null> {
  const parts: Buffer[] = [];
  const pieces: LogPiece[] = [];
  const skipped: SkippedLogFile[] = [];
  let at = 0;
  let found = resume === null;
  for (const file of logFiles(logDir)) {
    try {
      const from = found ? 0 : await resumeFrom(file, resume!);
      if (from === null) continue;
      const { bytes, fileId } = await readRegularFileFrom(file, from, MAX_LOG_FILE_BYTES);
      // Rotated or written again since the stat: the place is not there any more.
      if (!found && (fileId !== resume!.fileId || bytes.length < resume!.headBytes || sha256(bytes.subarray(0, resume!.headBytes)) !== resume!.head))
        return null;
      found = true;
      parts.push(bytes);
      pieces.push({ fileId, offset: from, at });
      at += bytes.length;
    } catch (error) {
      if ((error as { code?: string }).code === 'ENOENT') continue;
      if (!isAtticError(error)) throw error;
      skipped.push({ file, reason: error.message });
    }
  }
  if (!found) return null;
  const log = Buffer.concat(parts);
  const slices = sliceLog(log);
  return { slices, skipped, resume: resumeAfter(log, slices, pieces) };
}

/** `resume`'s offset when `file` is the file it points into, else null (a file before it, unread). */
async function resumeFrom(file: string, resume: LogResume): Promise<number | null> {
  const stat = await fs.stat(file, { bigint: true });
  return fileIdOf(stat) === resume.fileId && stat.size >= BigInt(resume.offset) ? resume.offset : null;
}

/** The newest slice's first line, as a place in its file. */
function resumeAfter(log: Buffer, slices: readonly LogSlice[], pieces: readonly LogPiece[]): LogResume | null {
  const newest = slices.reduce<LogSlice | null>((last, s) => (last === null || s.start > last.start ? s : last), null);
  const piece = newest ? pieces.findLast((p) => p.at <= newest.start) : undefined;
  if (!newest || !piece) return null;
  const head = log.subarray(newest.start, newest.start + HEAD_BYTES);
  return { fileId: piece.fileId, offset: piece.offset + newest.start - piece.at, head: sha256(head), headBytes: head.length };
}
