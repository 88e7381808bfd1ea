import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Replay } from '../../fixtures/replay.mjs';
import type { Step } from '../../fixtures/generate.mjs';
import { attic, atticJson, installedHistory } from './installed.js';

/**
 * One call of every command of the installed package, on the fixture history its own `run`
 * captured: each answer is checked against the artifacts the steps wrote, never against
 * another answer of ours. What a Node line could change lies below these calls: the native
 * DuckDB binding (every reading command), zlib and the file system (capture, verify, push).
 */
let replay: Replay & { workDir: string };
let cwd: string;
const artifact = <T>(step: Step, file: string): T => JSON.parse(readFileSync(path.join(replay.history, step.dir, 'target', file), 'utf8')) as T;
const bytes = (step: Step, file: string): Buffer => readFileSync(path.join(replay.history, step.dir, 'target', file));
const last = (): Step => replay.steps.at(-1)!;
type Manifest = { nodes: Record<string, { resource_type: string; name: string }> };

beforeAll(async () => {
  replay = await installedHistory();
  cwd = replay.project;
});
afterAll(() => rmSync(replay.workDir, { recursive: true, force: true }));

describe('the installed package, one call of each command', () => {
  it('history: one row per invocation the steps ran, newest first', () => {
    const rows = atticJson<{ invocation_id: string }[]>(['history', '--limit', '100'], cwd);
    expect(rows.map((r) => r.invocation_id)).toEqual([...replay.steps].reverse().map((s) => s.invocation_id));
  });

  it("state --last-success: the last clean build's manifest, byte for byte", () => {
    const ran = attic(['state', '--last-success'], cwd);
    expect(ran.exitCode, ran.stderr).toBe(0);
    expect(readFileSync(path.join(ran.stdout.trim(), 'manifest.json'))).toEqual(bytes(last(), 'manifest.json'));
  });

  it('state --per-node: a manifest dbt can read, with every node of the newest build', () => {
    const ran = attic(['state', '--per-node'], cwd);
    expect(ran.exitCode, ran.stderr).toBe(0);
    const built = JSON.parse(readFileSync(path.join(ran.stdout.trim(), 'manifest.json'), 'utf8')) as Manifest;
    expect(Object.keys(built.nodes)).toEqual(
      expect.arrayContaining(Object.keys(artifact<Manifest>(last(), 'manifest.json').nodes).filter((id) => id.startsWith('model.'))),
    );
  });

  it('query: the native DuckDB binding counts the run results of the newest build', () => {
    const id = last().invocation_id;
    const rows = atticJson<{ n: number }[]>(['query', `select count(*)::INTEGER AS n from run_result where invocation_id = '${id}'`], cwd);
    expect(rows).toEqual([{ n: artifact<{ results: unknown[] }>(last(), 'run_results.json').results.length }]);
  });

  it('inspect, diff and show answer for invocations and a node the artifacts name', () => {
    const [a, b] = [replay.steps[0]!.invocation_id, last().invocation_id];
    expect(atticJson<{ invocation_id?: string }>(['inspect', b], cwd)).toMatchObject({ invocation: { invocation_id: b } });
    expect(attic(['diff', a, b, '--json'], cwd).exitCode).toBe(0);
    const model = Object.values(artifact<Manifest>(last(), 'manifest.json').nodes).find((n) => n.resource_type === 'model')!;
    const shown = attic(['show', model.name], cwd);
    expect(shown.exitCode, shown.stderr).toBe(0);
    expect(shown.stdout.toLowerCase()).toContain('select');
  });

  it('plan and explain decide for the manifest in target/', () => {
    const plan = attic(['plan', '--no-record', '--json'], cwd);
    expect(plan.exitCode, plan.stderr).toBe(0);
    const model = Object.values(artifact<Manifest>(last(), 'manifest.json').nodes).find((n) => n.resource_type === 'model')!;
    const explained = attic(['explain', model.name], cwd);
    expect(explained.exitCode, explained.stderr).toBe(0);
    expect(explained.stdout).toContain(model.name);
  });

  it('report writes one HTML file; branch, info, sync and rebuild answer', () => {
    const out = path.join(replay.workDir, 'report.html');
    expect(attic(['report', '--out', out], cwd).exitCode).toBe(0);
    expect(readFileSync(out, 'utf8')).toMatch(/^<!doctype html>/i);
    expect(atticJson<{ name: string }[]>(['branch', 'list'], cwd).map((b) => b.name)).toContain('main');
    expect(attic(['info', '--json'], cwd).exitCode).toBe(0);
    expect(attic(['sync'], cwd).exitCode).toBe(0);
    expect(atticJson<{ invocations: number }>(['rebuild'], cwd)).toMatchObject({ invocations: replay.steps.length });
  });

  it('push, pull, capture, forget, prune, compact and verify keep the archive whole', () => {
    const other = mkdtempSync(path.join(os.tmpdir(), 'smoke-remote-'));
    expect(attic(['push', other], cwd).exitCode).toBe(0);
    expect(attic(['pull', other], cwd).exitCode).toBe(0);
    expect(attic(['capture', '--quiet'], cwd).exitCode).toBe(0);
    expect(attic(['forget', '--keep-last', '3'], cwd).exitCode).toBe(0);
    expect(attic(['prune'], cwd).exitCode).toBe(0);
    expect(attic(['compact'], cwd).exitCode).toBe(0);
    const verify = attic(['verify'], cwd);
    expect(verify.exitCode, verify.stdout).toBe(0);
    const kept = atticJson<unknown[]>(['history', '--limit', '100'], cwd).length;
    expect(kept).toBeGreaterThanOrEqual(3);
    expect(kept).toBeLessThan(replay.steps.length);
    expect(existsSync(path.join(other, 'archive'))).toBe(true);
  });
});
