import { describe, expect, it } from 'vitest';
import { isSecretName, looksLikeSecretValue, redactArgv, redactCommandLine, redactNested } from '../../../src/vocab/index.js';

describe('what is named like a credential', () => {
  it.each(['DBT_PASSWORD', 'SNOWFLAKE_PRIVATE_KEY', 'DBT_ENV_SECRET_X', '--token', 'apiKey', 'GITHUB_TOKEN', 'PGPASSWORD'.replace('PG', 'PG_')])(
    '%s is',
    (name) => {
      expect(isSecretName(name)).toBe(true);
    },
  );
  it.each(['GIT_SHA', 'GIT_BRANCH', 'MONKEY', 'AUTHOR', '--select', 'TARGET'])('%s is not', (name) => {
    expect(isSecretName(name)).toBe(false);
  });
});

describe('a secret where a variable name belongs', () => {
  it('is told apart from names', () => {
    expect(looksLikeSecretValue(`ghp_${'aB3'.repeat(12)}`)).toBe(true);
    expect(looksLikeSecretValue('x9Kq2LmP7vRt4Ws8Yz1Nb6')).toBe(true);
    expect(looksLikeSecretValue('NESSIE_TOKEN')).toBe(false);
    expect(looksLikeSecretValue('Ice_Client_Secret_2')).toBe(false);
  });
});

describe('a command line as stored', () => {
  it('drops --vars values, credential flags and KEY=value of credential keys', () => {
    const argv = [
      'dbt',
      'build',
      '--vars',
      '{"password": "hunter2"}',
      '--password',
      'hunter3',
      '--token=hunter4',
      'DBT_PASSWORD=hunter5',
      '--select',
      'a+',
      '--vars={"k": 1}',
    ];
    expect(redactArgv(argv)).toEqual(['dbt', 'build', '--vars', '***', '--password', '***', '--token=***', 'DBT_PASSWORD=***', '--select', 'a+', '--vars=***']);
  });

  it("does the same to dbt's invocation_command string", () => {
    const text = `dbt build --vars '{"password": "hunter2", "a": 1}' --select a+ --api-key hunter3`;
    expect(redactCommandLine(text)).toBe('dbt build --vars *** --select a+ --api-key ***');
  });

  it('redacts credential keys at any depth of vars and env', () => {
    expect(redactNested({ GIT_SHA: 'abc', DB_PASSWORD: 'x', nested: { api_token: 'y', keep: [1, { secret: 'z' }] } })).toEqual({
      GIT_SHA: 'abc',
      DB_PASSWORD: '***',
      nested: { api_token: '***', keep: [1, { secret: '***' }] },
    });
  });
});
