import { AtticError } from '../../../errors.js';
import type { LakefsConfig } from '../config.js';
import { requestJson } from '../http.js';
import type { ProviderContext, ProviderReading } from '../provider.js';
import { authorizationHeaders } from '../secrets.js';

/**
 * lakeFS versions a repository of objects; a branch's head commit names the state of every
 * table stored in it, so the snapshot is atomic.
 * GET {endpoint}/api/v1/repositories/{repository}/branches/{branch} → `{ id, commit_id }`.
 * Auth: basic with the access key id and secret (username_env, password_env), or a bearer token.
 */
export async function readLakefsSnapshot(config: LakefsConfig, ctx: ProviderContext): Promise<ProviderReading> {
  const what = `lakeFS branch '${config.branch}' of repository '${config.repository}'`;
  const body = await requestJson(ctx, {
    what,
    url: `${config.endpoint}/api/v1/repositories/${encodeURIComponent(config.repository)}/branches/${encodeURIComponent(config.branch)}`,
    headers: authorizationHeaders(config.auth, ctx.env),
  });
  const commitId = typeof body === 'object' && body !== null && 'commit_id' in body ? body.commit_id : undefined;
  if (typeof commitId !== 'string' || commitId === '') {
    throw new AtticError('catalog', `${what}: the answer has no commit_id; is ${config.endpoint} a lakeFS server?`);
  }
  return { snapshotId: commitId, ref: config.branch };
}
