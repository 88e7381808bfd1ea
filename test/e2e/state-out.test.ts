import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { makeProject, runCli } from '../helpers/cli.js';
import { syntheticManifest, syntheticRunResults } from '../helpers/synthetic-artifacts.js';

/** `state --out` writes where the user says, but never deletes or replaces the user's own files there. */
describe('state --out into a directory that already exists', () => {
  const id = 'bbbbbbbb-2222-4333-8444-555555555555';
  let dir: string;
  beforeAll(async () => {
    const project = makeProject();
    dir = project.dir;
    writeFileSync(path.join(project.target, 'manifest.json'), syntheticManifest({ invocationId: id }));
    writeFileSync(path.join(project.target, 'run_results.json'), syntheticRunResults({ invocationId: id }));
    expect((await runCli(['capture', '--quiet'], { cwd: dir })).exitCode).toBe(0);
    return () => rmSync(dir, { recursive: true, force: true });
  });

  it("refuses a non-empty directory it did not make, and leaves the user's files as they were", async () => {
    const out = path.join(dir, 'mine');
    mkdirSync(out);
    writeFileSync(path.join(out, 'sources.json'), 'my own notes');
    writeFileSync(path.join(out, 'manifest.json'), 'my own manifest');
    const result = await runCli(['state', '--invocation', id.slice(0, 8), '--out', 'mine'], { cwd: dir });
    expect(result.exitCode).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain('is not a state directory dbtattic made');
    expect(readdirSync(out).sort()).toEqual(['manifest.json', 'sources.json']);
    expect(readFileSync(path.join(out, 'sources.json'), 'utf8')).toBe('my own notes');
    expect(readFileSync(path.join(out, 'manifest.json'), 'utf8')).toBe('my own manifest');
  });

  it('writes into an empty directory, and again into the state directory it made', async () => {
    const out = path.join(dir, 'empty');
    mkdirSync(out);
    onTestFinished(() => rmSync(out, { recursive: true, force: true }));
    for (let round = 0; round < 2; round++) {
      const result = await runCli(['state', '--invocation', id.slice(0, 8), '--out', 'empty'], { cwd: dir });
      expect(result, `round ${round}`).toMatchObject({ exitCode: 0, stdout: `${out}\n` });
    }
    expect(readdirSync(out).sort()).toEqual(['.dbtattic-state', 'manifest.json', 'run_results.json']);
  });

  it('holds one invocation only: asked for other artifacts, it drops those of the state before', async () => {
    const out = path.join(dir, 'again');
    onTestFinished(() => rmSync(out, { recursive: true, force: true }));
    expect((await runCli(['state', '--invocation', id.slice(0, 8), '--out', 'again'], { cwd: dir })).exitCode).toBe(0);
    const runResultsOnly = await runCli(['state', '--invocation', id.slice(0, 8), '--out', 'again', '--artifacts', 'run_results'], { cwd: dir });
    expect(runResultsOnly.exitCode, runResultsOnly.stderr).toBe(0);
    expect(readdirSync(out).sort()).toEqual(['.dbtattic-state', 'run_results.json']);
  });
});
