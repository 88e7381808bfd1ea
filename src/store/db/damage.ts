import type { DuckDBConnection } from '@duckdb/node-api';

/**
 * What the store left out because the archive's bytes are damaged: reading commands still answer
 * from everything intact, then say what is missing and exit 1, so a script learns its answer is
 * incomplete. Invocations named by their id; a damaged capture record names none, only its key.
 */
export interface StoreDamage {
  invocations: string[];
  records: string[];
}

export async function readStoreDamage(connection: DuckDBConnection): Promise<StoreDamage> {
  const rows = (await connection.runAndReadAll("SELECT DISTINCT invocation_id, archive_key FROM ingest_problem WHERE kind = 'damaged' ORDER BY ALL")).getRows();
  const invocations = new Set<string>();
  const records: string[] = [];
  for (const [invocationId, key] of rows) {
    if (invocationId !== null) invocations.add(String(invocationId));
    else if (key !== null) records.push(String(key));
  }
  return { invocations: [...invocations], records };
}

export function isDamaged(damage: StoreDamage): boolean {
  return damage.invocations.length > 0 || damage.records.length > 0;
}
