import { promises as fs } from 'node:fs';
import path from 'node:path';
import { isAtticError } from '../errors.js';
import { artifactFileName, sha256, type ArtifactType, type ObjectId } from '../vocab/index.js';
import { contentInvocationId, readArtifactHeader, type ArtifactHeader } from './artifact-header.js';

/** One artifact file as found in target/, before anything is decided about it. */
export type InspectedArtifact =
  | { artifact: ArtifactType; path: string; state: 'absent' }
  | { artifact: ArtifactType; path: string; state: 'error'; error: string }
  | {
      artifact: ArtifactType;
      path: string;
      state: 'present';
      bytes: Buffer;
      sha256: ObjectId;
      header: ArtifactHeader;
      invocationId: string;
      invocationIdSource: 'metadata' | 'content' | 'manifest';
    };

/**
 * Reads each configured artifact in target/, hashes it and reads its header. Only the header:
 * whether the whole file needs checking is decided later, once the hash says it is new.
 */
export async function inspectTarget(targetDir: string, artifacts: readonly ArtifactType[]): Promise<InspectedArtifact[]> {
  const inspected: InspectedArtifact[] = [];
  for (const artifact of artifacts) inspected.push(await inspectArtifact(targetDir, artifact));
  return assignSemanticManifest(inspected);
}

async function inspectArtifact(targetDir: string, artifact: ArtifactType): Promise<InspectedArtifact> {
  const file = path.join(targetDir, artifactFileName(artifact));
  let bytes: Buffer;
  try {
    bytes = await fs.readFile(file);
  } catch (error) {
    const code = (error as { code?: string }).code;
    if (code === 'ENOENT') return { artifact, path: file, state: 'absent' };
    return { artifact, path: file, state: 'error', error: `it cannot be read (${code ?? String(error)})` };
  }
  try {
    const header = readArtifactHeader(artifact, bytes);
    const sha = sha256(bytes);
    const fromMetadata = header.invocationId;
    return {
      artifact,
      path: file,
      state: 'present',
      bytes,
      sha256: sha,
      header,
      invocationId: fromMetadata ?? contentInvocationId(bytes),
      invocationIdSource: fromMetadata ? 'metadata' : 'content',
    };
  } catch (error) {
    if (!isAtticError(error)) throw error;
    return { artifact, path: file, state: 'error', error: error.message };
  }
}

/**
 * semantic_manifest.json carries no metadata; dbt writes it together with manifest.json while
 * parsing, so it belongs to the manifest's invocation when one sits beside it.
 */
function assignSemanticManifest(inspected: InspectedArtifact[]): InspectedArtifact[] {
  const manifest = inspected.find((a) => a.artifact === 'manifest' && a.state === 'present');
  if (!manifest || manifest.state !== 'present') return inspected;
  return inspected.map((a) =>
    a.artifact === 'semantic_manifest' && a.state === 'present' && a.invocationIdSource === 'content'
      ? { ...a, invocationId: manifest.invocationId, invocationIdSource: 'manifest' }
      : a,
  );
}

export type PresentArtifact = Extract<InspectedArtifact, { state: 'present' }>;
