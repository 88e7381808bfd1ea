import { promises as fs, type BigIntStats } from 'node:fs';

/**
 * What a state directory's marker remembers of each artifact file dbtattic wrote there: the
 * blob it holds, and the file as stat saw it when written (size, mtime in ns, inode). When the
 * file is still that file, it still holds that blob, and `state` need not read the blob again
 * to find out: reassembling and checking a 60 MB manifest was most of a repeated `state
 * --last-success` (hashing and inflating every chunk, then reading the file to compare). A
 * file replaced or edited since has another inode, size or mtime, and is compared in full, as
 * git's index does with its stat data.
 */
export interface WrittenFile {
  sha256: string;
  size: string;
  mtimeNs: string;
  ino: string;
}

export type WrittenFiles = Record<string, WrittenFile>;

export function writtenFile(sha256: string, stats: BigIntStats): WrittenFile {
  return { sha256, size: String(stats.size), mtimeNs: String(stats.mtimeNs), ino: String(stats.ino) };
}

/** The marker's second line; nothing known when it has none or cannot be read (an older dbtattic's marker). */
export async function readWrittenFiles(marker: string): Promise<WrittenFiles> {
  try {
    const line = (await fs.readFile(marker, 'utf8')).split('\n')[1];
    const parsed: unknown = line ? JSON.parse(line) : {};
    const files: WrittenFiles = {};
    if (!parsed || typeof parsed !== 'object') return files;
    for (const [name, entry] of Object.entries(parsed)) if (isWrittenFile(entry)) files[name] = entry;
    return files;
  } catch {
    return {};
  }
}

/** True when `file` is the file `known` describes and that holds `sha256`. */
export async function stillHolds(file: string, known: WrittenFile | undefined, sha256: string): Promise<boolean> {
  if (!known || known.sha256 !== sha256) return false;
  const stats = await fs.stat(file, { bigint: true }).catch(() => null);
  if (!stats) return false;
  const now = writtenFile(sha256, stats);
  return now.size === known.size && now.mtimeNs === known.mtimeNs && now.ino === known.ino;
}

function isWrittenFile(value: unknown): value is WrittenFile {
  if (!value || typeof value !== 'object') return false;
  const entry: Record<string, unknown> = { ...value };
  return ['sha256', 'size', 'mtimeNs', 'ino'].every((key) => typeof entry[key] === 'string');
}
