import { rmSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { makeProject } from '../helpers/cli.js';
import { announceS3Skip, makeBucket, s3Available, s3Env } from '../helpers/s3.js';
import { writeSyntheticTarget } from '../helpers/synthetic-artifacts.js';
import { attic, atticJson } from './installed.js';

/** The S3 client as the installed package loads it on this Node line, against the real S3 server of the tests. */
announceS3Skip('test/smoke/s3.test.ts (the installed package on S3)');

describe.skipIf(!s3Available)('the installed package on an S3 store', () => {
  it('captures into a bucket, reads it back through a fresh cache, and verifies it', async () => {
    const store = `s3://${await makeBucket()}/smoke`;
    const project = makeProject();
    const id = '99999999-aaaa-4bbb-8ccc-000000000009';
    writeSyntheticTarget({ invocationId: id }, project.target);
    const env = { ...s3Env(), DBTATTIC_STORE: store, XDG_CACHE_HOME: `${project.dir}/cache` };
    const captured = attic(['capture', '--quiet'], project.dir, env);
    expect(captured.exitCode, captured.stderr).toBe(0);
    const elsewhere = { ...env, XDG_CACHE_HOME: `${project.dir}/other-cache` };
    expect(atticJson<{ invocation_id: string }[]>(['history'], project.dir, elsewhere).map((r) => r.invocation_id)).toEqual([id]);
    const verify = attic(['verify'], project.dir, elsewhere);
    expect(verify.exitCode, verify.stdout).toBe(0);
    rmSync(project.dir, { recursive: true, force: true });
  });
});
