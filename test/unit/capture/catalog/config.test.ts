import { describe, expect, it } from 'vitest';
import { parseCatalogConfig } from '../../../../src/capture/catalog/index.js';
import { AtticError } from '../../../../src/errors.js';

function configError(raw: unknown): AtticError {
  try {
    parseCatalogConfig(raw);
  } catch (error) {
    if (error instanceof AtticError) return error;
    throw error;
  }
  throw new Error('expected parseCatalogConfig to throw');
}

describe('parseCatalogConfig', () => {
  it('is undefined without a catalog section', () => {
    expect(parseCatalogConfig(undefined)).toBeUndefined();
    expect(parseCatalogConfig(null)).toBeUndefined();
  });

  it('normalises each provider, with defaults', () => {
    expect(parseCatalogConfig({ provider: 'nessie', uri: 'http://localhost:19120/api/v1/', token_env: 'NESSIE_TOKEN' })).toEqual({
      provider: 'nessie',
      timeoutMs: 5000,
      uri: 'http://localhost:19120',
      ref: '-',
      auth: { tokenEnv: 'NESSIE_TOKEN', usernameEnv: undefined, passwordEnv: undefined },
    });
    expect(parseCatalogConfig({ provider: 'lakefs', endpoint: 'https://lakefs.example.com', repository: 'lake', timeout_ms: 2000 })).toMatchObject({
      endpoint: 'https://lakefs.example.com',
      branch: 'main',
      timeoutMs: 2000,
    });
    expect(
      parseCatalogConfig({
        provider: 'iceberg-rest',
        uri: 'https://polaris.example.com/api/catalog',
        warehouse: 'wh',
        prefix: '/p/',
        client_id_env: 'ID',
        client_secret_env: 'SECRET',
      }),
    ).toEqual({
      provider: 'iceberg-rest',
      timeoutMs: 5000,
      uri: 'https://polaris.example.com/api/catalog',
      warehouse: 'wh',
      prefix: 'p',
      auth: { tokenEnv: undefined },
      oauth: { clientIdEnv: 'ID', clientSecretEnv: 'SECRET', scope: 'catalog', serverUri: undefined },
    });
    expect(parseCatalogConfig({ provider: 'command', command: ['lakectl', 'branch', 'show', ''] })).toEqual({
      provider: 'command',
      timeoutMs: 5000,
      command: ['lakectl', 'branch', 'show', ''],
      atomic: false,
    });
    expect(parseCatalogConfig({ provider: 'env', variable: 'SNAPSHOT_ID' })).toMatchObject({ variable: 'SNAPSHOT_ID', atomic: false });
  });

  it('names the key and the fix in each refusal', () => {
    const cases: [unknown, RegExp][] = [
      ['nessie', /^catalog must be a mapping/],
      [{ uri: 'http://x' }, /^catalog\.provider must be one of: nessie, lakefs, iceberg-rest, command, env\./],
      [
        { provider: 'nessie', uri: 'http://x', tokenenv: 'T' },
        /^catalog\.tokenenv is not a setting of the nessie provider; did you mean catalog\.token_env\? Its settings are: provider, timeout_ms, uri, ref/,
      ],
      [{ provider: 'nessie' }, /^catalog\.uri is required/],
      [{ provider: 'nessie', uri: 'localhost:19120' }, /^catalog\.uri must be an http:\/\/ or https:\/\/ URL/],
      [{ provider: 'nessie', uri: 'not a url' }, /^catalog\.uri is not a valid URL/],
      [{ provider: 'nessie', uri: 'https://u:p@nessie.example.com' }, /^catalog\.uri carries credentials \(user:password@\)/],
      [{ provider: 'nessie', uri: 'https://nessie.example.com?token=abc' }, /^catalog\.uri carries a credential in its query \(\?token=…\)/],
      [{ provider: 'nessie', uri: 'https://nessie.example.com?x=1' }, /^catalog\.uri must not have a query string/],
      [{ provider: 'nessie', uri: 'http://x', timeout_ms: 0 }, /^catalog\.timeout_ms must be a whole number/],
      [{ provider: 'nessie', uri: 'http://x', username_env: 'U' }, /^catalog\.password_env is required when username_env is set/],
      [
        { provider: 'nessie', uri: 'http://x', token_env: 'T', username_env: 'U', password_env: 'P' },
        /^catalog\.username_env cannot be combined with catalog\.token_env/,
      ],
      [{ provider: 'lakefs', endpoint: 'http://x' }, /^catalog\.repository is required/],
      [{ provider: 'iceberg-rest', uri: 'http://x', client_id_env: 'I' }, /^catalog\.client_secret_env is required when client_id_env is set/],
      [{ provider: 'iceberg-rest', uri: 'http://x', scope: 'catalog' }, /^catalog\.scope and catalog\.oauth2_server_uri need catalog\.client_id_env/],
      [{ provider: 'iceberg-rest', uri: 'http://x', username_env: 'U' }, /^catalog\.username_env is not a setting of the iceberg-rest provider/],
      [{ provider: 'command', command: 'lakectl branch show' }, /^catalog\.command must be a list of arguments, .* without a shell/],
      [{ provider: 'command', command: [] }, /^catalog\.command must be a list of strings/],
      [{ provider: 'env', variable: 'not-a-name' }, /^catalog\.variable must name an environment variable/],
      [{ provider: 'env', variable: 'X', atomic: 'yes' }, /^catalog\.atomic must be true or false/],
    ];
    for (const [raw, message] of cases) {
      const error = configError(raw);
      expect(error.code).toBe('config');
      expect(error.message).toMatch(message);
    }
  });
});
