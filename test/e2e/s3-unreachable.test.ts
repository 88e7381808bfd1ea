import { describe, expect, it } from 'vitest';
import { makeProject, runCliProcess } from '../helpers/cli.js';

/** Runs the built CLI (dist/), so it sits with the end-to-end tests, not the unit tests of src/. */
describe('an unreachable S3 endpoint', () => {
  it('fails with exit status 6 and a message naming the bucket and the fix', async () => {
    const project = makeProject({}, 'team');
    const result = await runCliProcess(['--store', 's3://team-bucket/dbt', 'branch', 'list'], {
      cwd: project.dir,
      env: { AWS_ENDPOINT_URL: 'http://127.0.0.1:9', AWS_ACCESS_KEY_ID: 'x', AWS_SECRET_ACCESS_KEY: 'y', AWS_REGION: 'us-east-1', XDG_CACHE_HOME: project.dir },
    });
    expect(result.exitCode).toBe(6);
    expect(result.stderr).toMatch(/Cannot reach http:\/\/127\.0\.0\.1:9 for bucket 'team-bucket'.*AWS_ENDPOINT_URL/);
  }, 60_000);
});
