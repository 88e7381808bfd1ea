import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, it, onTestFinished } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { syntheticRunResults } from '../helpers/synthetic-artifacts.js';

it("a project whose path holds a '?': captures are archived, reads say what to do, and --store elsewhere works", async () => {
  const parent = mkdtempSync(path.join(os.tmpdir(), 'attic-qmark-'));
  onTestFinished(() => rmSync(parent, { recursive: true, force: true }));
  const dir = path.join(parent, 'what?ever');
  mkdirSync(path.join(dir, 'target'), { recursive: true });
  writeFileSync(path.join(dir, 'dbt_project.yml'), 'name: q\nversion: "1.0"\nprofile: q\n');
  const id = 'cccccccc-2222-4333-8444-555555555555';
  writeFileSync(path.join(dir, 'target', 'run_results.json'), syntheticRunResults({ invocationId: id }));

  const capture = await runCli(['capture', '--quiet'], { cwd: dir });
  expect(capture.exitCode, capture.stderr).toBe(0);
  const history = await runCli(['history'], { cwd: dir });
  expect(history.exitCode).toBe(2);
  expect(history.stderr).toContain("has a '?' in its path");
  expect(history.stderr).toContain('--store');
  expect((await runCli(['verify'], { cwd: dir })).exitCode).toBe(0);

  const elsewhere = path.join(parent, 'store');
  expect((await runCli(['--store', elsewhere, 'capture', '--quiet'], { cwd: dir })).exitCode).toBe(0);
  const moved = await runCli(['--store', elsewhere, 'history', '--json'], { cwd: dir });
  expect(moved.exitCode, moved.stderr).toBe(0);
  expect(moved.stdout).toContain(id);
});
