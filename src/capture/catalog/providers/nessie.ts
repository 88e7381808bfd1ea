import { AtticError } from '../../../errors.js';
import type { NessieConfig } from '../config.js';
import { requestJson } from '../http.js';
import type { ProviderContext, ProviderReading } from '../provider.js';
import { authorizationHeaders } from '../secrets.js';

/**
 * Nessie versions a whole catalog the way git versions a tree: one commit hash on a
 * reference covers every table at once, so the snapshot is atomic.
 * API v2: GET {uri}/api/v2/trees/{ref} → `{ reference: { type, name, hash } }`.
 */
export async function readNessieSnapshot(config: NessieConfig, ctx: ProviderContext): Promise<ProviderReading> {
  const what = `Nessie reference '${config.ref}'`;
  const body = await requestJson(ctx, {
    what,
    url: `${config.uri}/api/v2/trees/${encodeURIComponent(config.ref)}`,
    headers: authorizationHeaders(config.auth, ctx.env),
  });
  const reference = typeof body === 'object' && body !== null && 'reference' in body ? body.reference : undefined;
  const hash = readField(reference, 'hash');
  if (hash === undefined) throw new AtticError('catalog', `${what}: the answer has no reference.hash; is ${config.uri} a Nessie server speaking API v2?`);
  return { snapshotId: hash, ref: readField(reference, 'name') ?? config.ref };
}

function readField(value: unknown, key: string): string | undefined {
  if (typeof value !== 'object' || value === null || !(key in value)) return undefined;
  const field: unknown = (value as Record<string, unknown>)[key];
  return typeof field === 'string' && field !== '' ? field : undefined;
}
