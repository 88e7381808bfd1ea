import { randomBytes } from 'node:crypto';
import { promises as fs, readFileSync, statSync } from 'node:fs';
import { processIsGone } from '../../vocab/index.js';

/**
 * `<store>.compacting`: which process compacts the store. Locks alone would let two
 * compactions copy side by side (read-only attaches share the lock), each for a minute at 1,000
 * runs, and the second would throw its copy away. The claim is written whole (a temp file
 * linked into place, which fails if one is there), so nobody reads half of it.
 */
export interface CompactionClaim {
  /** Touched during a long copy, so that nobody takes it for abandoned. */
  refresh(): Promise<void>;
  release(): Promise<void>;
}

/** A claim this old belongs to a process that died (or a pid reused since): nobody's. */
const ABANDONED_MS = 30 * 60 * 1000;

const claimFile = (store: string) => `${store}.compacting`;

/** Claims the compaction of `store` for `pid` (default: this process); null when a live process holds it. */
export async function claimCompaction(store: string, pid = process.pid): Promise<CompactionClaim | null> {
  const file = claimFile(store);
  for (let attempt = 0; attempt < 2; attempt++) {
    if (await linkClaim(file, pid)) return claimOf(file, pid);
    const holder = readHolder(file);
    if (holder === pid) return claimOf(file, pid);
    if (holder !== undefined && isLive(file, holder)) return null;
    await fs.rm(file, { force: true });
  }
  return null;
}

/** True while a live process holds the claim (what a bench waits for between runs). */
export function compactionRunning(store: string): boolean {
  const holder = readHolder(claimFile(store));
  return holder !== undefined && isLive(claimFile(store), holder);
}

async function linkClaim(file: string, pid: number): Promise<boolean> {
  const temp = `${file}-${randomBytes(4).toString('hex')}`;
  await fs.writeFile(temp, `${JSON.stringify({ pid })}\n`);
  try {
    await fs.link(temp, file);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  } finally {
    await fs.rm(temp, { force: true });
  }
}

function claimOf(file: string, pid: number): CompactionClaim {
  return {
    refresh: async () => {
      const now = new Date();
      await fs.utimes(file, now, now).catch(() => undefined);
    },
    release: async () => {
      if (readHolder(file) === pid) await fs.rm(file, { force: true });
    },
  };
}

/** The pid in the claim; undefined when there is none or it cannot be read (taken as abandoned). */
function readHolder(file: string): number | undefined {
  try {
    const pid = (JSON.parse(readFileSync(file, 'utf8')) as { pid?: unknown }).pid;
    return Number.isSafeInteger(pid) && (pid as number) > 0 ? (pid as number) : undefined;
  } catch {
    return undefined;
  }
}

function isLive(file: string, pid: number): boolean {
  const mtimeMs = statSync(file, { throwIfNoEntry: false })?.mtimeMs;
  return mtimeMs !== undefined && Date.now() - mtimeMs <= ABANDONED_MS && !processIsGone(pid);
}
