import { AtticError } from '../../../errors.js';
import type { IcebergRestConfig } from '../config.js';
import { requestJson } from '../http.js';
import type { ProviderContext } from '../provider.js';
import { readCredential } from '../secrets.js';

/**
 * An Iceberg REST catalog takes a bearer token: either one the user already has (token_env),
 * or one exchanged for OAuth2 client credentials, form-encoded as RFC 6749 §4.4 says, at
 * `oauth2_server_uri` or else the catalog's own (deprecated but still served) /v1/oauth/tokens.
 */
export async function readIcebergAuthHeaders(config: IcebergRestConfig, ctx: ProviderContext): Promise<Record<string, string>> {
  if (config.auth.tokenEnv !== undefined) return { authorization: `Bearer ${readCredential(ctx.env, config.auth.tokenEnv, 'token_env')}` };
  if (config.oauth === undefined) return {};
  const form = new URLSearchParams({
    grant_type: 'client_credentials',
    client_id: readCredential(ctx.env, config.oauth.clientIdEnv, 'client_id_env'),
    client_secret: readCredential(ctx.env, config.oauth.clientSecretEnv, 'client_secret_env'),
    scope: config.oauth.scope,
  });
  const what = 'OAuth2 token request (client credentials)';
  const body = await requestJson(ctx, {
    what,
    url: config.oauth.serverUri ?? `${config.uri}/v1/oauth/tokens`,
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: form.toString(),
    sendsCredentials: true,
  });
  const token = typeof body === 'object' && body !== null && 'access_token' in body ? body.access_token : undefined;
  if (typeof token !== 'string' || token === '') throw new AtticError('catalog', `${what}: the answer has no access_token.`);
  ctx.mask.add(token);
  return { authorization: `Bearer ${token}` };
}
