import { AtticError } from '../errors.js';
import { JsonScanError, objectMembers, parseMember, scanDocument } from '../json/scan.js';
import { sha256, type ArtifactType } from '../vocab/index.js';

/**
 * What capture needs to know about an artifact without parsing it whole: which invocation it
 * belongs to and which versions wrote it. dbt puts `metadata` first; Fusion puts it after the
 * maps, so the scan walks top-level members until it has it (skipping a value is cheap).
 */
export interface ArtifactHeader {
  invocationId: string | null;
  dbtSchemaVersion: string | null;
  dbtVersion: string | null;
  generatedAt: string | null;
}

/** The path segment dbt uses in dbt_schema_version for each artifact type. */
const SCHEMA_FAMILY: Record<ArtifactType, string | null> = {
  manifest: '/manifest/',
  run_results: '/run-results/',
  sources: '/sources/',
  catalog: '/catalog/',
  // semantic_manifest.json carries no metadata block at all.
  semantic_manifest: null,
};

/** Top-level keys an artifact from before dbt 0.19 (no dbt_schema_version) must have. */
const LEGACY_KEYS: Record<ArtifactType, string> = {
  manifest: 'nodes',
  run_results: 'results',
  sources: 'results',
  catalog: 'nodes',
  semantic_manifest: 'semantic_models',
};

export function readArtifactHeader(type: ArtifactType, bytes: Buffer): ArtifactHeader {
  let metadata: Record<string, unknown> | null = null;
  let generatedAt: unknown = null;
  let hasLegacyKey = false;
  try {
    for (const member of objectMembers(bytes)) {
      if (member.key === 'metadata') metadata = asRecord(parseMember(bytes, member));
      else if (member.key === 'generated_at') generatedAt = parseMember(bytes, member);
      if (member.key === LEGACY_KEYS[type]) hasLegacyKey = true;
      if (metadata?.dbt_schema_version !== undefined) break;
    }
  } catch (error) {
    throw unreadable(type, error);
  }
  const header = headerOf(metadata, generatedAt);
  checkFamily(type, header, hasLegacyKey);
  return header;
}

function headerOf(metadata: Record<string, unknown> | null, generatedAt: unknown): ArtifactHeader {
  return {
    invocationId: stringOrNull(metadata?.invocation_id),
    dbtSchemaVersion: stringOrNull(metadata?.dbt_schema_version),
    dbtVersion: stringOrNull(metadata?.dbt_version),
    generatedAt: stringOrNull(metadata?.generated_at ?? generatedAt),
  };
}

function checkFamily(type: ArtifactType, header: ArtifactHeader, hasLegacyKey: boolean): void {
  const family = SCHEMA_FAMILY[type];
  if (header.dbtSchemaVersion !== null) {
    if (family !== null && !header.dbtSchemaVersion.includes(family)) {
      throw new AtticError('artifact-unreadable', `its dbt_schema_version is ${header.dbtSchemaVersion}, which is not a ${type} schema`);
    }
    return;
  }
  if (!hasLegacyKey) {
    throw new AtticError('artifact-unreadable', `it is not a dbt ${type}: no metadata.dbt_schema_version and no '${LEGACY_KEYS[type]}' key`);
  }
}

/** Checks the whole document is complete, well-formed JSON before we archive it. */
export function checkComplete(bytes: Buffer): void {
  try {
    scanDocument(bytes);
  } catch (error) {
    throw unreadable('artifact', error);
  }
}

/** Artifacts from before dbt 0.19 have no invocation id: one derived from their content is stable. */
export function contentInvocationId(bytes: Uint8Array): string {
  return `content-${sha256(bytes).slice(0, 32)}`;
}

function unreadable(what: string, error: unknown): AtticError {
  if (error instanceof JsonScanError) return new AtticError('artifact-unreadable', `it is not complete JSON (${error.message})`);
  if (error instanceof AtticError) return error;
  return new AtticError('artifact-unreadable', `the ${what} could not be read: ${String(error)}`);
}

function asRecord(value: unknown): Record<string, unknown> | null {
  return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
}

function stringOrNull(value: unknown): string | null {
  return typeof value === 'string' ? value : null;
}
