import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateSequence } from '../../fixtures/generate.mjs';
import { writeScaledManifest, type SeedManifest } from '../../fixtures/scale-manifest.mjs';
import { BIN, makeProject } from '../helpers/cli.js';
import { installFakeDbt, type FakeDbt } from '../helpers/fake-dbt.js';

/**
 * `dbt build --select $(dbtattic plan --format selector)` with 10,000 nodes to build, through the
 * stand-in dbt: every node arrives as its own argument, none near Linux's 128 KB limit for one
 * argument (MAX_ARG_STRLEN), which the same list quoted as one argument exceeds. The manifest
 * is our synthetic fixture's, its nodes replicated under new names (fixtures/scale-manifest.mjs).
 */
const NODES = 10_000;
const MAX_ARG = 128 * 1024;

let project: { dir: string; target: string };
let fake: FakeDbt;
beforeAll(async () => {
  project = makeProject();
  const history = path.join(project.dir, 'history');
  const steps = generateSequence(history);
  const seed = JSON.parse(readFileSync(path.join(history, steps[6]!.dir, 'target', 'manifest.json'), 'utf8')) as SeedManifest;
  const perCopy = Object.keys(seed.nodes).length;
  const bytes = Buffer.byteLength(JSON.stringify(seed.nodes)) * Math.ceil(NODES / perCopy);
  await writeScaledManifest(path.join(project.target, 'manifest.json'), bytes, seed, {
    tweak: (copy: number, node: Record<string, unknown>) => (copy === 0 ? node : { ...node, name: `${String(node.name)}_x${copy}` }),
  });
  rmSync(history, { recursive: true, force: true });
  fake = await installFakeDbt();
}, 240_000);
afterAll(async () => {
  rmSync(project.dir, { recursive: true, force: true });
  await fake?.remove();
});

describe('plan --format selector at 10,000 nodes', () => {
  it('passes every node to dbt as its own argument', async () => {
    // Nothing was ever built: every model, seed, snapshot and test of the manifest is to build.
    const manifest = JSON.parse(readFileSync(path.join(project.target, 'manifest.json'), 'utf8')) as { nodes: Record<string, { resource_type: string }> };
    const toBuild = Object.values(manifest.nodes).filter((n) => ['model', 'seed', 'snapshot', 'test'].includes(n.resource_type)).length;
    expect(toBuild).toBeGreaterThanOrEqual(NODES);
    const argsFile = path.join(project.dir, 'dbt-args.json');
    const wordsFile = path.join(project.dir, 'words.txt');
    const env = fake.env({ FAKE_DBT_ARGS_OUT: argsFile, FAKE_DBT_DELAY_MS: '0', NO_COLOR: '1' });
    const script = `words=$(node ${JSON.stringify(BIN)} plan --format selector) && printf '%s' "$words" > words.txt && dbt build --quiet --select $words`;
    execFileSync('sh', ['-c', script], { cwd: project.dir, env, stdio: 'pipe' });
    const received = JSON.parse(readFileSync(argsFile, 'utf8')) as { select: string[]; argv: string[] };
    expect(received.select.length).toBe(toBuild);
    expect(new Set(received.select).size).toBe(toBuild);
    expect(Math.max(...received.argv.map((a) => Buffer.byteLength(a)))).toBeLessThan(MAX_ARG);
    expect(received.select.join(' ').length).toBeGreaterThan(MAX_ARG);
    // The same words as one quoted argument are refused by the kernel: the limit this format avoids.
    const quoted = spawnSync('sh', ['-c', `dbt build --select "$(cat ${JSON.stringify(wordsFile)})"`], { cwd: project.dir, env, encoding: 'utf8' });
    expect(quoted.status).not.toBe(0);
    expect(quoted.stderr).toMatch(/Argument list too long/i);
  }, 240_000);
});
