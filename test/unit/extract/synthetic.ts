/**
 * Builders of small synthetic artifacts for unit tests. They are made up, shaped after dbt's
 * schemas, and only hold the fields a test is about; the real artifacts are in the corpus.
 */
export const SCHEMA_URL = (family: string, version: number): string => `https://schemas.getdbt.com/dbt/${family}/v${version}.json`;

export function bytes(value: unknown): Buffer {
  return Buffer.from(JSON.stringify(value, null, 1));
}

export function syntheticMetadata(family: string, version: number, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    dbt_schema_version: SCHEMA_URL(family, version),
    dbt_version: '1.99.0-synthetic',
    generated_at: '2030-01-02T03:04:05.000000Z',
    invocation_id: 'synthetic-invocation',
    env: {},
    ...extra,
  };
}

export function syntheticModel(name: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    resource_type: 'model',
    unique_id: `model.synthetic_project.${name}`,
    name,
    package_name: 'synthetic_project',
    original_file_path: `models/${name}.sql`,
    path: `${name}.sql`,
    raw_code: `select 1 as ${name}_id`,
    language: 'sql',
    database: 'db',
    schema: 'analytics',
    alias: name,
    checksum: { name: 'sha256', checksum: `checksum-of-${name}` },
    config: { enabled: true, materialized: 'view', tags: [], meta: {} },
    tags: [],
    meta: {},
    description: '',
    columns: {},
    fqn: ['synthetic_project', name],
    depends_on: { nodes: [], macros: [] },
    created_at: 1_700_000_000.5,
    ...extra,
  };
}
