import { randomBytes } from 'node:crypto';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { readBlob, type Backend } from '../archive/index.js';
import { AtticError, asDiskError } from '../errors.js';
import { artifactFileName, type ArtifactType } from '../vocab/index.js';
import type { ArchivedInvocation } from './invocations.js';

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
 * the right bytes is left alone, so repeated calls are cheap and safe to run concurrently.
 */
export async function writeStateDir(backend: Backend, invocation: ArchivedInvocation, dir: string, artifacts: readonly ArtifactType[] = STATE_ARTIFACTS): Promise<string[]> {
  await markStateDir(dir);
  const written: string[] = [];
  for (const artifact of artifacts) {
    const record = invocation.artifacts[artifact];
    const file = path.join(dir, artifactFileName(artifact));
    if (!record) {
      // A stale file from another invocation would mislead dbt's selectors.
      await fs.rm(file, { force: true });
      continue;
    }
    const bytes = await readBlob(backend, record.sha256);
    if (!(await holds(file, bytes))) await writeAtomically(file, bytes);
    written.push(file);
  }
  return written;
}

/** Creates `dir` if need be and marks it as a state directory dbtattic writes into. */
export async function markStateDir(dir: string): Promise<void> {
  try {
    await fs.mkdir(dir, { recursive: true });
    await fs.writeFile(path.join(dir, STATE_DIR_MARKER), 'A dbtattic state directory: `dbtattic state` replaces the artifacts in it.\n');
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

/** A failed write (a full disk) leaves no temp file behind in a directory dbt reads. */
export async function writeAtomically(file: string, bytes: Buffer): Promise<void> {
  const temp = `${file}.${randomBytes(6).toString('hex')}.tmp`;
  try {
    await fs.writeFile(temp, bytes);
    await fs.rename(temp, file);
  } catch (error) {
    await fs.rm(temp, { force: true }).catch(() => undefined);
    throw asDiskError(error, `the state directory ${path.dirname(file)}`, file, 'give another --out');
  }
}
