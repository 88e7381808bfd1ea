import { promises as fs, type BigIntStats } from 'node:fs';
import path from 'node:path';
import { invocationIdProblem } from '../archive/index.js';
import { isAtticError } from '../errors.js';
import { artifactFileName, type ArtifactType, type ObjectId } from '../vocab/index.js';
import { contentInvocationId, readArtifactHeader, type ArtifactHeader } from './artifact-header.js';
import { notRegularReason, readRegularFileHashed } from './regular-file.js';
import type { StatCache } from './stat-cache.js';

/** One artifact file as found in target/, before anything is decided about it. */
export type InspectedArtifact =
  | { artifact: ArtifactType; path: string; state: 'absent' }
  | { artifact: ArtifactType; path: string; state: 'error'; error: string }
  | {
      artifact: ArtifactType;
      path: string;
      state: 'present';
      /** Null when the stat cache vouched for the file: read only if it has to be stored. */
      bytes: Buffer | null;
      size: number;
      sha256: ObjectId;
      header: ArtifactHeader;
      invocationId: string;
      invocationIdSource: 'metadata' | 'content' | 'manifest';
      /** The file's modification time: whether dbt wrote it during a given run. */
      modifiedMs?: number;
    };

/**
 * Reads each configured artifact in target/, hashes it and reads its header. Only the header:
 * whether the whole file needs checking is decided later, once the hash says it is new.
 */
export async function inspectTarget(targetDir: string, artifacts: readonly ArtifactType[], cache?: StatCache): Promise<InspectedArtifact[]> {
  const inspected: InspectedArtifact[] = [];
  for (const artifact of artifacts) inspected.push(await inspectArtifact(path.join(targetDir, artifactFileName(artifact)), artifact, cache));
  return assignSemanticManifest(inspected);
}

/** Reads and hashes the file, unless the stat cache knows it; `cache` learns what was read. */
export async function inspectArtifact(file: string, artifact: ArtifactType, cache?: StatCache): Promise<InspectedArtifact> {
  let stat: BigIntStats;
  let bytes: Buffer;
  let id: ObjectId;
  try {
    stat = await fs.stat(file, { bigint: true });
    const notRegular = notRegularReason(stat);
    if (notRegular) return { artifact, path: file, state: 'error', error: notRegular };
    const cached = cache?.lookup(file, stat);
    if (cached) return { artifact, path: file, state: 'present', bytes: null, ...cached, modifiedMs: Number(stat.mtimeNs / 1_000_000n) };
    ({ bytes, sha256: id } = await readRegularFileHashed(file));
  } catch (error) {
    if (isAtticError(error)) return { artifact, path: file, state: 'error', error: error.message };
    const code = (error as { code?: string }).code;
    if (code === 'ENOENT') return { artifact, path: file, state: 'absent' };
    return { artifact, path: file, state: 'error', error: `it cannot be read (${code ?? String(error)})` };
  }
  try {
    const header = readArtifactHeader(artifact, bytes);
    const fromMetadata = header.invocationId;
    const idProblem = fromMetadata === null ? null : invocationIdProblem(fromMetadata);
    if (idProblem) return { artifact, path: file, state: 'error', error: `${idProblem}: dbt writes a UUID there` };
    const inspection = {
      sha256: id,
      size: bytes.length,
      header,
      invocationId: fromMetadata ?? contentInvocationId(bytes),
      invocationIdSource: fromMetadata ? ('metadata' as const) : ('content' as const),
    };
    // A file that changed while we read it must not be remembered under its old identity.
    if (bytes.length === Number(stat.size)) cache?.remember(file, stat, inspection);
    return { artifact, path: file, state: 'present', bytes, ...inspection, modifiedMs: Number(stat.mtimeNs / 1_000_000n) };
  } catch (error) {
    if (!isAtticError(error)) throw error;
    return { artifact, path: file, state: 'error', error: error.message };
  }
}

/**
 * semantic_manifest.json carries no metadata; dbt writes it together with manifest.json while
 * parsing, so it belongs to the manifest's invocation when one sits beside it. Beside one that
 * cannot be read, its invocation is unknown, and filed under a content id it would be cut off
 * from it for good.
 */
function assignSemanticManifest(inspected: InspectedArtifact[]): InspectedArtifact[] {
  const manifest = inspected.find((a) => a.artifact === 'manifest');
  // Alone (a project that keeps it in git for MetricFlow, say), it is filed under a content id.
  if (!manifest || manifest.state === 'absent') return inspected;
  return inspected.map((a) => {
    if (a.artifact !== 'semantic_manifest' || a.state !== 'present' || a.invocationIdSource !== 'content') return a;
    if (manifest.state === 'error')
      return { artifact: a.artifact, path: a.path, state: 'error', error: unknownInvocation('the manifest.json beside it cannot be read') };
    return { ...a, invocationId: manifest.invocationId, invocationIdSource: 'manifest' };
  });
}

/** Why a semantic manifest is left out: its manifest is missing or unreadable (`why`). */
export function unknownInvocation(why: string): string {
  return `${why}, so its invocation is unknown; capture again once dbt has rewritten both`;
}

export type PresentArtifact = Extract<InspectedArtifact, { state: 'present' }>;
