import { randomBytes } from 'node:crypto';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { readBlob, type Backend } from '../archive/index.js';
import { artifactFileName, type ArtifactType } from '../vocab/index.js';
import type { ArchivedInvocation } from './invocations.js';

/** What dbt's --state reads: the manifest for state:, results for result:, sources for source_status:. */
const STATE_ARTIFACTS: ArtifactType[] = ['manifest', 'run_results', 'sources'];

/**
 * Writes the invocation's archived artifacts, byte for byte, into `dir`. Each file goes to a
 * temp name and is renamed into place, so dbt never reads half a file; a file already holding
 * the right bytes is left alone, so repeated calls are cheap and safe to run concurrently.
 */
export async function writeStateDir(backend: Backend, invocation: ArchivedInvocation, dir: string): Promise<string[]> {
  await fs.mkdir(dir, { recursive: true });
  const written: string[] = [];
  for (const artifact of STATE_ARTIFACTS) {
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

async function holds(file: string, bytes: Buffer): Promise<boolean> {
  try {
    return (await fs.readFile(file)).equals(bytes);
  } catch {
    return false;
  }
}

async function writeAtomically(file: string, bytes: Buffer): Promise<void> {
  const temp = `${file}.${randomBytes(6).toString('hex')}.tmp`;
  await fs.writeFile(temp, bytes);
  await fs.rename(temp, file);
}
