import { randomBytes } from 'node:crypto';
import { promises as fs, type BigIntStats } from 'node:fs';
import path from 'node:path';
import { readBlob, type Backend } from '../archive/index.js';
import { AtticError, asDiskError } from '../errors.js';
import { ARTIFACT_TYPES, artifactFileName, type ArtifactType } from '../vocab/index.js';
import type { ArchivedInvocation } from './invocations.js';
import { readWrittenFiles, stillHolds, writtenFile, type WrittenFiles } from './written-files.js';

/** What dbt's --state reads: the manifest for state:, results for result:, sources for source_status:. */
export const STATE_ARTIFACTS: readonly ArtifactType[] = ['manifest', 'run_results', 'sources'];

/**
 * Marks a directory as one dbtattic writes state into: only such a directory, or an empty one,
 * is written to, since writing removes a stale manifest.json and friends. A user's own files in
 * a directory given to `--out` are never touched.
 */
export const STATE_DIR_MARKER = '.dbtattic-state';

/** Refuses `dir` when it holds files and is not a state directory dbtattic made. */
export async function checkStateDir(dir: string): Promise<void> {
  const entries: string[] = await fs.readdir(dir).catch((error: { code?: string }) => {
    if (error.code === 'ENOENT') return [];
    if (error.code === 'ENOTDIR') throw new AtticError('usage', `${dir} is a file, not a directory; give --out a new or empty directory.`);
    throw error;
  });
  if (entries.length === 0 || entries.includes(STATE_DIR_MARKER)) return;
  throw new AtticError(
    'usage',
    `${dir} already holds files and is not a state directory dbtattic made; state would replace its manifest.json, run_results.json and sources.json. Give --out a new or empty directory.`,
    { path: dir },
  );
}

/**
 * Writes the invocation's archived artifacts (those `--state` reads unless others are asked
 * for), byte for byte, into `dir`. Each file goes to a
 * temp name and is renamed into place, so dbt never reads half a file; a file already holding
 * the right bytes is left alone, so repeated calls are cheap and safe to run concurrently. The
 * marker remembers what was written (written-files.ts): a file that is still the one written
 * is not read again, nor is its blob.
 */
export async function writeStateDir(
  backend: Backend,
  invocation: ArchivedInvocation,
  dir: string,
  artifacts: readonly ArtifactType[] = STATE_ARTIFACTS,
): Promise<string[]> {
  const known = await readWrittenFiles(path.join(dir, STATE_DIR_MARKER));
  await markStateDir(dir);
  const written: string[] = [];
  const now: WrittenFiles = {};
  for (const artifact of ARTIFACT_TYPES) {
    const record = artifacts.includes(artifact) ? invocation.artifacts[artifact] : undefined;
    const name = artifactFileName(artifact);
    const file = path.join(dir, name);
    if (!record) {
      // A file of another invocation (an earlier state here) would mislead dbt's selectors.
      await fs.rm(file, { force: true });
      continue;
    }
    written.push(file);
    if (await stillHolds(file, known[name], record.sha256)) {
      now[name] = known[name]!;
      continue;
    }
    const bytes = await readBlob(backend, record.sha256);
    const stats = (await holds(file, bytes)) ? await fs.stat(file, { bigint: true }) : await writeAtomically(file, bytes);
    now[name] = writtenFile(record.sha256, stats);
  }
  await markStateDir(dir, now);
  return written;
}

const MARKER_NOTE = 'A dbtattic state directory: `dbtattic state` replaces the artifacts in it.';

/** Creates `dir` if need be and marks it as a state directory dbtattic writes into, with what it wrote there. */
export async function markStateDir(dir: string, written: WrittenFiles = {}): Promise<void> {
  try {
    await fs.mkdir(dir, { recursive: true });
    await fs.writeFile(path.join(dir, STATE_DIR_MARKER), `${MARKER_NOTE}\n${JSON.stringify(written)}\n`);
  } catch (error) {
    throw asDiskError(error, `the state directory ${dir}`, dir, 'give another --out');
  }
}

async function holds(file: string, bytes: Buffer): Promise<boolean> {
  try {
    return (await fs.readFile(file)).equals(bytes);
  } catch {
    return false;
  }
}

/**
 * A failed write (a full disk) leaves no temp file behind in a directory dbt reads. Returns the
 * file as stat sees it before the rename, which keeps it: stat after the rename could see a
 * file another process renamed there meanwhile.
 */
export async function writeAtomically(file: string, bytes: Buffer): Promise<BigIntStats> {
  const temp = `${file}.${randomBytes(6).toString('hex')}.tmp`;
  try {
    await fs.writeFile(temp, bytes);
    const stats = await fs.stat(temp, { bigint: true });
    await fs.rename(temp, file);
    return stats;
  } catch (error) {
    await fs.rm(temp, { force: true }).catch(() => undefined);
    throw asDiskError(error, `the state directory ${path.dirname(file)}`, file, 'give another --out');
  }
}
