import { readdirSync, readFileSync, writeFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { findCorpusTarget, schemaVersionAt } from '../helpers/corpus.js';
import { makeProject, mask, runCli } from '../helpers/cli.js';

function listFiles(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string): void => {
    for (const entry of readdirSync(d, { withFileTypes: true })) {
      const full = path.join(d, entry.name);
      if (entry.isDirectory()) walk(full);
      else out.push(path.relative(dir, full));
    }
  };
  walk(dir);
  return out.sort();
}

/** A target/ of dbt 1.x holding a current manifest and run results, and nothing else to trip on. */
const sample = findCorpusTarget('a manifest v10–v12 and run_results v5–v6 only', (files) => {
  const manifest = files.get('manifest.json');
  const results = files.get('run_results.json');
  return (
    files.size === 2 &&
    !!manifest &&
    !!results &&
    /manifest\/v1[0-2]\.json$/.test(schemaVersionAt(manifest) ?? '') &&
    /run-results\/v[56]\.json$/.test(schemaVersionAt(results) ?? '')
  );
});
const artifactsOf = (dir: string): Record<string, string> =>
  Object.fromEntries(
    readdirSync(dir)
      .filter((n) => n.endsWith('.json'))
      .map((n) => [n, path.join(dir, n)]),
  );

describe.skipIf(!sample)('capture (on a real target/ from the corpus)', () => {
  it('files each artifact under its own invocation, then stores nothing the second time', async () => {
    const project = makeProject(artifactsOf(sample!));
    const first = await runCli(['capture'], { cwd: project.dir });
    expect(first.exitCode).toBe(0);
    expect(first.stdout).toMatch(/manifest\t\w{8}\tcaptured/);
    const archive = path.join(project.dir, '.dbtattic', 'archive');
    const before = listFiles(archive);

    const second = await runCli(['capture', '--json'], { cwd: project.dir });
    expect(second.exitCode).toBe(0);
    const parsed = JSON.parse(second.stdout) as { artifacts: { status: string; stored_bytes: number }[] };
    expect(parsed.artifacts.filter((a) => a.status === 'captured')).toEqual([]);
    expect(parsed.artifacts.reduce((sum, a) => sum + a.stored_bytes, 0)).toBe(0);
    expect(listFiles(archive)).toEqual(before);
  });

  it('reports an unreadable artifact with its path and reason, captures the rest, and exits 1', async () => {
    const project = makeProject(artifactsOf(sample!));
    const manifest = path.join(project.target, 'manifest.json');
    writeFileSync(manifest, readFileSync(manifest).subarray(0, 5000));
    writeFileSync(path.join(project.target, 'sources.json'), 'this is not json');
    const result = await runCli(['capture'], { cwd: project.dir });
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toContain(`${manifest}: it is not complete JSON`);
    expect(result.stderr).toMatch(/sources\.json: it is not complete JSON|sources\.json: .*invalid JSON/);
    expect(result.stdout).toMatch(/run_results\t\w{8}\tcaptured/);
    const records = listFiles(path.join(project.dir, '.dbtattic', 'archive', 'records', 'invocations'));
    expect(records.filter((r) => r.includes('/manifest-') || r.includes('/sources-'))).toEqual([]);
  });

  it('refuses a file that is JSON but not the artifact its name says', async () => {
    const project = makeProject({ 'manifest.json': path.join(sample!, 'run_results.json') });
    const result = await runCli(['capture'], { cwd: project.dir });
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toMatch(/Expected a manifest, but its dbt_schema_version .* says run_results/);
  });
});

describe('capture without a usable project', () => {
  it('says so when target/ is missing', async () => {
    const project = makeProject();
    rmSync(project.target, { recursive: true });
    const result = await runCli(['capture'], { cwd: project.dir });
    expect(result.exitCode).toBe(3);
    expect(mask(result.stderr, [project.dir])).toBe('error: No target directory at <DIR>/target. Run dbt first, or pass --target-path.\n');
  });

  it('says so outside a dbt project', async () => {
    const project = makeProject();
    rmSync(path.join(project.dir, 'dbt_project.yml'));
    const result = await runCli(['capture', '--json'], { cwd: project.dir });
    expect(result.exitCode).toBe(2);
    expect(JSON.parse(result.stdout).error.code).toBe('project-not-found');
  });
});
