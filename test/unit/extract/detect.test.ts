import { describe, expect, it } from 'vitest';
import { AtticError } from '../../../src/errors.js';
import { checkSchemaVersion, invocationIdOf, parseSchemaUrl, readHeader } from '../../../src/extract/detect.js';
import { bytes, SCHEMA_URL, syntheticMetadata } from './synthetic.js';

function codeOf(run: () => unknown): string | undefined {
  try {
    run();
  } catch (error) {
    return error instanceof AtticError ? error.code : `not an AtticError: ${String(error)}`;
  }
  return undefined;
}

describe('parseSchemaUrl', () => {
  it('reads family and version', () => {
    expect(parseSchemaUrl(SCHEMA_URL('run-results', 6))).toEqual({ family: 'run-results', version: 6 });
    expect(parseSchemaUrl('not a url')).toBeNull();
  });
});

describe('readHeader', () => {
  it('reads the type and version from metadata', () => {
    const header = readHeader(bytes({ metadata: syntheticMetadata('manifest', 12), nodes: {} }), 'manifest');
    expect(header).toMatchObject({ type: 'manifest', schemaVersion: 12, generatedAt: '2030-01-02T03:04:05.000000Z' });
  });

  it('finds metadata written after the maps, as Fusion does', () => {
    const header = readHeader(bytes({ nodes: { a: {} }, macros: {}, metadata: syntheticMetadata('manifest', 20) }));
    expect(header).toMatchObject({ type: 'manifest', schemaVersion: 20 });
  });

  it('refuses an artifact of another type than expected', () => {
    expect(codeOf(() => readHeader(bytes({ metadata: syntheticMetadata('catalog', 1) }), 'manifest'))).toBe('artifact-unreadable');
  });

  it('tells unversioned (pre-0.19) artifacts apart by their keys', () => {
    expect(readHeader(bytes({ nodes: {}, macros: {}, generated_at: '2020-01-01T00:00:00Z' })).type).toBe('manifest');
    expect(readHeader(bytes({ nodes: {}, sources: {}, generated_at: null })).type).toBe('catalog');
    expect(readHeader(bytes({ semantic_models: [], metrics: [] })).type).toBe('semantic_manifest');
    const freshness = { results: [{ node: { resource_type: 'source', unique_id: 'source.p.s.t' }, status: 'pass' }] };
    expect(readHeader(bytes(freshness)).type).toBe('sources');
    const run = { results: [{ node: { resource_type: 'model', unique_id: 'model.p.m' }, status: 'CREATE VIEW' }] };
    expect(readHeader(bytes(run)).type).toBe('run_results');
  });

  it('takes the top-level generated_at of an unversioned artifact', () => {
    const header = readHeader(bytes({ nodes: {}, macros: {}, generated_at: '2020-01-01T00:00:00Z' }), 'manifest');
    expect(header).toMatchObject({ schemaVersion: null, generatedAt: '2020-01-01T00:00:00Z' });
  });

  it('refuses what is not a dbt artifact, and truncated JSON', () => {
    expect(codeOf(() => readHeader(bytes({ hello: 'world' }), 'manifest'))).toBe('artifact-unreadable');
    expect(codeOf(() => readHeader(Buffer.from('{"nodes": {"a": '), 'manifest'))).toBe('artifact-unreadable');
  });
});

describe('checkSchemaVersion', () => {
  const header = (family: string, version: number) => readHeader(bytes({ metadata: syntheticMetadata(family, version) }));

  it('passes every version we know', () => {
    for (const version of [1, 4, 12, 20]) expect(codeOf(() => checkSchemaVersion(header('manifest', version)))).toBeUndefined();
    expect(codeOf(() => checkSchemaVersion(header('run-results', 6)))).toBeUndefined();
  });

  it('refuses an unknown version with a typed error naming it', () => {
    let error: unknown;
    try {
      checkSchemaVersion(header('manifest', 13));
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(AtticError);
    expect((error as AtticError).code).toBe('unknown-schema-version');
    expect((error as AtticError).message).toContain('v13');
    expect((error as AtticError).message).toContain('v1–v12 and v20');
  });

  it('reads a newer version only when asked to, never an older unknown one', () => {
    expect(codeOf(() => checkSchemaVersion(header('run-results', 7), { acceptNewerSchema: true }))).toBeUndefined();
    expect(codeOf(() => checkSchemaVersion(header('manifest', 21), { acceptNewerSchema: true }))).toBeUndefined();
    expect(codeOf(() => checkSchemaVersion(header('catalog', 0), { acceptNewerSchema: true }))).toBe('unknown-schema-version');
  });
});

describe('invocationIdOf', () => {
  it("prefers the artifact's own id, then the archive's", () => {
    const versioned = readHeader(bytes({ metadata: syntheticMetadata('sources', 3), results: [] }));
    expect(invocationIdOf(versioned, { invocationId: 'from-archive' })).toBe('synthetic-invocation');
    const unversioned = readHeader(bytes({ results: [], generated_at: null }), 'run_results');
    expect(invocationIdOf(unversioned, { invocationId: 'from-archive' })).toBe('from-archive');
    expect(codeOf(() => invocationIdOf(unversioned, {}))).toBe('artifact-unreadable');
  });
});
