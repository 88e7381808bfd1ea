import { describe, expect, it } from 'vitest';
import { isCredentialKey, isSecretName, maskSecretShapes, redactArgv, redactCommandLine, redactNested } from '../../../src/vocab/index.js';

/**
 * Credentials the name rule missed (issue 42, item 10), each found by its shape. The values are
 * made up in the formats the services document (AWS's own example key pair among them).
 */
const AWS_ID = 'AKIAIOSFODNN7EXAMPLE';
const AWS_SECRET = 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY';
const JWT = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U';
const PEM = '-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA7bq\nq3xLoQ==\n-----END RSA PRIVATE KEY-----';

describe('credentials by their shape in free text', () => {
  it.each([
    [
      'URL user-info',
      'could not connect to postgres://analytics:S3cr3t!@db.internal:5432/prod',
      'could not connect to postgres://analytics:***@db.internal:5432/prod',
    ],
    [
      'a password= in a connection string',
      'Server=tcp:x.database.windows.net;Database=dw;User Id=etl;Password=p@ss;Encrypt=yes',
      'Server=tcp:x.database.windows.net;Database=dw;User Id=etl;Password=***;Encrypt=yes',
    ],
    ['pwd= in ODBC', 'DRIVER={ODBC};UID=me;PWD=hunter2;', 'DRIVER={ODBC};UID=me;PWD=***;'],
    ['a bearer token', 'HTTP 401: Authorization: Bearer abcdef0123456789.xyz rejected', 'HTTP 401: Authorization: Bearer *** rejected'],
    ['an AWS access key id', `credentials ${AWS_ID} are invalid`, 'credentials *** are invalid'],
    ['an AWS secret access key', `secret ${AWS_SECRET} end`, 'secret *** end'],
    ['aws_secret_access_key = in INI', `aws_secret_access_key = ${AWS_SECRET}`, 'aws_secret_access_key = ***'],
    ['a JSON "password"', '{"user": "etl", "password": "hunter2"}', '{"user": "etl", "password": ***}'],
    ['a JWT', `token was ${JWT}`, 'token was ***'],
    ['a GitHub token', `remote: ghp_${'a1B2c3D4'.repeat(4)} denied`, 'remote: *** denied'],
    ['a PEM block', `key:\n${PEM}\ndone`, 'key:\n-----BEGIN RSA PRIVATE KEY-----***-----END RSA PRIVATE KEY-----\ndone'],
  ])('%s', (_, text, masked) => {
    expect(maskSecretShapes(text)).toBe(masked);
    expect(maskSecretShapes(masked)).toBe(masked);
  });

  it.each([
    'Database Error in model stg_orders (models/staging/stg_orders.sql): relation "raw.orders" does not exist',
    'Got 3 results, configured to fail if != 0',
    'unique_key: order_id, key: value, sort_key=3',
    'https://github.com/dbt-labs/jaffle-shop and http://localhost:8080/api/v1',
    'git 2f1d4c1a9b0e8d7c6b5a4f3e2d1c0b9a8f7e6d5c at 2026-01-05T10:00:00.123456Z in 1.52s',
    'invocation 5e1ec7ed-0000-4000-8000-000000000005, target prod, --select state:modified+',
    'ssh://git@github.com/org/repo.git',
  ])('leaves alone: %s', (text) => {
    expect(maskSecretShapes(text)).toBe(text);
  });

  it('names a key a credential in free text only when it says so, not for unique_key or key', () => {
    expect(['Password', 'pwd', 'PGPASSWORD', 'aws_secret_access_key', 'api_key', 'client_secret', 'accessKey'].filter(isCredentialKey)).toHaveLength(7);
    expect(['unique_key', 'key', 'sort_key', 'monkey', 'passenger_count'].filter(isCredentialKey)).toEqual([]);
  });
});

describe("the issue's cases, where they are stored", () => {
  it('a command line: env assignments, -p, -u user:password, a connection string, keys in any argument', () => {
    const argv = [
      'dbt',
      'build',
      'DATABASE_URL=postgres://u:PASS1@h/db',
      'PGPASSWORD=PASS2',
      '-p',
      'PASS3',
      '-u',
      'admin:PASS4',
      '--conn-str',
      'Server=x;Password=PASS5;',
      `AWS_ACCESS_KEY_ID=${AWS_ID}`,
      '--select',
      'a+',
    ];
    const stored = redactArgv(argv);
    expect(stored.join(' ')).not.toMatch(/PASS\d|AKIA/);
    expect(stored).toEqual([
      'dbt',
      'build',
      'DATABASE_URL=postgres://u:***@h/db',
      'PGPASSWORD=***',
      '-p',
      '***',
      '-u',
      'admin:***',
      '--conn-str',
      'Server=x;Password=***;',
      'AWS_ACCESS_KEY_ID=***',
      '--select',
      'a+',
    ]);
    expect(isSecretName('PGPASSWORD')).toBe(true);
  });

  it("dbt's invocation_command", () => {
    expect(redactCommandLine('dbt run --profiles-dir . --target postgres://u:PASS@h/db')).toBe('dbt run --profiles-dir . --target postgres://u:***@h/db');
  });

  it('vars and env: passwords in URLs, AWS keys by value, at any depth', () => {
    expect(redactNested({ warehouse: { url: 'postgres://u:PASS@h/db', region: 'eu-west-1' }, aws: [AWS_ID, AWS_SECRET], GIT_SHA: 'abc1234' })).toEqual({
      warehouse: { url: 'postgres://u:***@h/db', region: 'eu-west-1' },
      aws: ['***', '***'],
      GIT_SHA: 'abc1234',
    });
  });
});
