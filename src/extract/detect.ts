import { AtticError } from '../errors.js';
import { objectMembers, parseMember } from '../json/scan.js';
import type { ArtifactType } from '../vocab/index.js';
import { asObject, str, type JsonObject } from './fields.js';
import { arrayItems, parseRange, unreadableArtifact } from './scan-items.js';

/**
 * Which artifact a file is and which schema version wrote it, from `metadata.dbt_schema_version`
 * ("https://schemas.getdbt.com/dbt/manifest/v12.json"). Artifacts from before dbt 0.19 and every
 * semantic_manifest.json have none: their type comes from their top-level keys.
 */
export interface ArtifactHeader {
  type: ArtifactType;
  /** 12 for manifest/v12.json; null for an unversioned artifact. */
  schemaVersion: number | null;
  schemaUrl: string | null;
  /** The artifact's `metadata` object ({} when it has none). */
  metadata: JsonObject;
  /** metadata.generated_at, or the top-level generated_at of dbt before 0.19. */
  generatedAt: string | null;
}

/** Every schema version we read. Fusion's first builds wrote manifest v20; later ones write v12. */
export const KNOWN_SCHEMA_VERSIONS: Record<ArtifactType, readonly number[]> = {
  manifest: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 20],
  run_results: [1, 2, 3, 4, 5, 6],
  sources: [1, 2, 3],
  catalog: [1],
  semantic_manifest: [],
  freshness: [0],
};

const FAMILY_TYPES: Record<string, ArtifactType> = {
  manifest: 'manifest',
  'run-results': 'run_results',
  sources: 'sources',
  catalog: 'catalog',
  'semantic-manifest': 'semantic_manifest',
  freshness: 'freshness',
};

export interface ReadOptions {
  /**
   * Read a schema version newer than any we know with the newest reader of its family. Off by
   * default: the archive keeps the bytes, so refusing loses nothing, and a rebuild after
   * upgrading dbtattic reads them properly.
   */
  acceptNewerSchema?: boolean;
  /**
   * The invocation the archive filed the artifact under: used when the artifact names none
   * (dbt before 0.19, semantic_manifest.json).
   */
  invocationId?: string;
}

/** Parses "…/dbt/<family>/v<N>.json"; null when `url` is not of that form. */
export function parseSchemaUrl(url: string): { family: string; version: number } | null {
  const match = /\/([a-z-]+)\/v(\d+)\.json$/.exec(url);
  return match ? { family: match[1]!, version: Number(match[2]) } : null;
}

/** Reads the header of `buf`, which the caller expects to be an artifact of `expected` type. */
export function readHeader(buf: Buffer, expected?: ArtifactType): ArtifactHeader {
  let metadata: JsonObject = {};
  let topGeneratedAt: string | null = null;
  const keys = new Map<string, { start: number; end: number }>();
  let type: ArtifactType;
  try {
    // dbt writes metadata first; Fusion after the maps, so keep walking (skipping is cheap).
    for (const member of objectMembers(buf)) {
      keys.set(member.key, member);
      if (member.key === 'metadata') metadata = asObject(parseMember(buf, member)) ?? {};
      if (member.key === 'generated_at') topGeneratedAt = str(parseMember(buf, member));
      if (str(metadata.dbt_schema_version) !== null) break;
    }
    const url = str(metadata.dbt_schema_version);
    type = url === null ? unversionedType(buf, keys, expected) : versionedType(url, expected);
  } catch (error) {
    throw unreadableArtifact(expected ?? 'artifact', error);
  }
  const schemaUrl = str(metadata.dbt_schema_version);
  const generatedAt = str(metadata.generated_at) ?? topGeneratedAt;
  return { type, schemaVersion: schemaUrl === null ? null : parseSchemaUrl(schemaUrl)!.version, schemaUrl, metadata, generatedAt };
}

function versionedType(url: string, expected: ArtifactType | undefined): ArtifactType {
  const parsed = parseSchemaUrl(url);
  const type = parsed && Object.hasOwn(FAMILY_TYPES, parsed.family) ? FAMILY_TYPES[parsed.family] : undefined;
  if (!type) {
    throw new AtticError('artifact-unreadable', `dbt_schema_version ${url} names no dbt artifact dbtattic knows.`, { schemaUrl: url });
  }
  if (expected && type !== expected) {
    throw new AtticError('artifact-unreadable', `Expected a ${expected}, but its dbt_schema_version ${url} says ${type}.`, { schemaUrl: url });
  }
  return type;
}

function unversionedType(buf: Buffer, keys: Map<string, { start: number; end: number }>, expected: ArtifactType | undefined): ArtifactType {
  const guessed = guessType(buf, keys);
  if (guessed === null || (expected && guessed !== expected)) {
    const shape = [...keys.keys()].join(', ');
    throw new AtticError(
      'artifact-unreadable',
      `This is not a dbt ${expected ?? 'artifact'}: it has no dbt_schema_version and its top-level keys are (${shape}).`,
    );
  }
  return guessed;
}

/** Tells unversioned artifacts apart by the keys only each one has. */
function guessType(buf: Buffer, keys: Map<string, { start: number; end: number }>): ArtifactType | null {
  if (keys.has('semantic_models')) return 'semantic_manifest';
  if (keys.has('nodes') && keys.has('macros')) return 'manifest';
  if (keys.has('nodes') && keys.has('sources')) return 'catalog';
  const results = keys.get('results');
  if (!results) return null;
  // Before 0.19 both results files nest the node; only a freshness result's node is a source.
  for (const item of arrayItems(buf, results)) {
    const node = asObject(asObject(parseRange(buf, item))?.node);
    return node?.resource_type === 'source' ? 'sources' : 'run_results';
  }
  return 'run_results';
}

/**
 * Refuses a schema version we do not know, naming it, unless `acceptNewerSchema` allows one
 * newer than all we know. Unversioned artifacts pass: they are the old shapes we read.
 */
export function checkSchemaVersion(header: ArtifactHeader, options: ReadOptions = {}): void {
  const version = header.schemaVersion;
  const known = KNOWN_SCHEMA_VERSIONS[header.type];
  if (version === null || known.includes(version)) return;
  if (options.acceptNewerSchema && version > Math.max(0, ...known)) return;
  throw new AtticError(
    'unknown-schema-version',
    `${header.type}.json has schema v${version} (${header.schemaUrl}); this dbtattic reads ${describeVersions(known)}. ` +
      'The artifact stays in the archive: upgrade dbtattic, then rebuild the store.',
    { schemaUrl: header.schemaUrl, type: header.type, version },
  );
}

function describeVersions(known: readonly number[]): string {
  if (known.length === 0) return 'only unversioned files';
  const runs: string[] = [];
  let first = known[0]!;
  known.forEach((version, i) => {
    const next = known[i + 1];
    if (next === version + 1) return;
    runs.push(first === version ? `v${version}` : `v${first}–v${version}`);
    if (next !== undefined) first = next;
  });
  return runs.join(' and ');
}

/** The invocation an artifact belongs to: its own id, else the one the archive gave it. */
export function invocationIdOf(header: ArtifactHeader, options: ReadOptions): string {
  const id = str(header.metadata.invocation_id) ?? options.invocationId;
  if (id) return id;
  throw new AtticError(
    'artifact-unreadable',
    `This ${header.type}.json names no invocation (dbt before 0.19 or a semantic manifest) and none was given; ingest it through the archive, which assigns one.`,
  );
}

/** The preamble of every extractor: the header, checked to be a version we read, and whose invocation it is. */
export function openArtifact(buf: Buffer, type: ArtifactType, options: ReadOptions): { header: ArtifactHeader; invocationId: string } {
  const header = readHeader(buf, type);
  checkSchemaVersion(header, options);
  return { header, invocationId: invocationIdOf(header, options) };
}
