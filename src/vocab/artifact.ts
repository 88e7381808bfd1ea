/** The dbt artifacts dbtattic knows, by the file name dbt gives them in target/. */
export const ARTIFACT_TYPES = [
  'manifest',
  'run_results',
  'sources',
  'catalog',
  'semantic_manifest',
  // dbt v2 (Fusion) `dbt freshness`: sources and models, schema freshness/v0.
  'freshness',
] as const;
export type ArtifactType = (typeof ARTIFACT_TYPES)[number];

export function artifactFileName(type: ArtifactType): string {
  return `${type}.json`;
}

export function isArtifactType(value: string): value is ArtifactType {
  return (ARTIFACT_TYPES as readonly string[]).includes(value);
}

/** When a capture happened relative to the dbt command it belongs to. */
export const CAPTURE_PHASES = ['pre', 'post', 'manual'] as const;
export type CapturePhase = (typeof CAPTURE_PHASES)[number];

export function isCapturePhase(value: string): value is CapturePhase {
  return (CAPTURE_PHASES as readonly string[]).includes(value);
}
