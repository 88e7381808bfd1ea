import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { archiveDirOf, listArtifactRecordFiles, readCaptureRecords, sha256Of } from '../helpers/archive-files.js';
import { onlyOutput, readOutputRecordFiles, restoreBlob } from '../helpers/archive-outputs.js';
import { countArtifactRows, STORE_COUNTS, type RowCounts } from '../helpers/artifact-row-counts.js';
import { dbtattic, duckshopHistory, type DbtHistory, type DbtStep } from '../helpers/dbt-history.js';
import { BIN } from '../helpers/cli.js';
import { dbtEnv, duckshopAt, hasRealDbt, NO_DBT_REASON } from '../helpers/real-dbt.js';

/**
 * Every dbt command users run, by a real dbt-core on examples/duckshop, each through `dbtattic
 * run -- dbt …` (test/helpers/dbt-history.ts). Checked against what dbt itself left in target/
 * and logs/ after each command, never against dbtattic's answers.
 */
const ARTIFACTS: Record<string, string> = {
  'manifest.json': 'manifest',
  'run_results.json': 'run_results',
  'sources.json': 'sources',
  'catalog.json': 'catalog',
  'semantic_manifest.json': 'semantic_manifest',
};

if (!hasRealDbt) console.warn(`real-dbt-commands: skipped, ${NO_DBT_REASON}`);

describe.skipIf(!hasRealDbt)('real dbt commands through dbtattic run', () => {
  let history: DbtHistory;
  let archive: string;
  beforeAll(async () => {
    history = await duckshopHistory();
    archive = archiveDirOf(history.project);
  }, 600_000);

  const step = (name: string): DbtStep => history.steps.find((s) => s.name === name)!;
  const snapshotFile = (s: DbtStep, file: string): string => path.join(history.dir, s.snapshot, file);
  const artifactsOf = (s: DbtStep): [string, string][] =>
    Object.entries(s.wrote)
      .filter(([file]) => file in ARTIFACTS)
      .map(([file, sha]) => [file, sha]);

  it("passes each dbt command's exit status through: the broken build 1, every other 0", () => {
    expect(history.steps.map((s) => [s.name, s.exitCode])).toEqual(history.steps.map((s) => [s.name, s.name === 'build-broken' ? 1 : 0]));
  });

  it('files every artifact each command wrote under the invocation dbt wrote into it, byte for byte', () => {
    const records = listArtifactRecordFiles(archive);
    for (const s of history.steps) {
      const written = artifactsOf(s);
      expect(written.length, `${s.name} wrote no artifact`).toBeGreaterThan(0);
      for (const [file, sha] of written) {
        const doc = JSON.parse(readFileSync(snapshotFile(s, path.join('target', file)), 'utf8')) as { metadata?: { invocation_id?: string } };
        // semantic_manifest.json carries no metadata (dbt 1.12): it is filed with the manifest's invocation.
        const invocation = doc.metadata?.invocation_id ?? s.invocationId;
        const record = records.find((r) => r.invocation === invocation && r.artifact === ARTIFACTS[file] && r.sha256 === sha);
        expect(record, `${s.name}: ${file} of ${invocation}`).toBeDefined();
        expect(sha256Of(restoreBlob(archive, sha))).toBe(sha);
      }
    }
  });

  it("files each command's lines of dbt.log under its invocation, exactly the lines dbt wrote for it", () => {
    for (const s of history.steps.filter((x) => x.invocationId)) {
      const log = readFileSync(snapshotFile(s, 'dbt.log'), 'utf8');
      // dbt starts each invocation's lines with a banner naming its id; the slice runs to the next banner.
      const start = log.lastIndexOf(`| ${s.invocationId} ====`);
      expect(start, `${s.name}: no banner for ${s.invocationId} in dbt.log`).toBeGreaterThan(0);
      const from = log.lastIndexOf('\n', start) + 1;
      const next = log.indexOf('\n============================== ', start);
      // dbt puts blank lines before each banner: which side of the cut they fall on is no line of either.
      const lines = (text: string): string => text.replace(/^\n+|\n+$/g, '');
      const expected = lines(log.slice(from, next < 0 ? undefined : next + 1));
      const slice = onlyOutput(readOutputRecordFiles(archive, s.invocationId!), 'log');
      expect(lines(restoreBlob(archive, slice.sha256).toString('utf8')), s.name).toBe(expected);
    }
  });

  it("holds, per invocation, as many store rows as dbt's JSON says", async () => {
    const expected: Record<string, RowCounts> = {};
    for (const s of history.steps) {
      for (const [file] of artifactsOf(s).filter(([f]) => f !== 'semantic_manifest.json')) {
        const doc = JSON.parse(readFileSync(snapshotFile(s, path.join('target', file)), 'utf8')) as Record<string, unknown> & {
          metadata: { invocation_id: string };
        };
        expected[doc.metadata.invocation_id] = { ...expected[doc.metadata.invocation_id], ...countArtifactRows(ARTIFACTS[file]!, doc) };
      }
    }
    const rows = JSON.parse(
      (await dbtattic(history.project, ['query', '--json', '--', `SELECT * FROM (${STORE_COUNTS}) WHERE key NOT LIKE 'semantic %'`])).stdout,
    ) as { invocation_id: string; key: string; n: number }[];
    const actual: Record<string, RowCounts> = {};
    for (const row of rows) actual[row.invocation_id] = { ...actual[row.invocation_id], [row.key]: Number(row.n) };
    expect(actual).toEqual(expected);
  });

  it('verifies clean', async () => {
    const verified = await dbtattic(history.project, ['verify', '--json']);
    expect(verified.exitCode, verified.stdout).toBe(0);
    expect(JSON.parse(verified.stdout)).toMatchObject({ ok: true, problems: [] });
  });

  it('files dbt retry as an invocation of its own, and state --last-success finds it once it succeeds', async () => {
    const [broken, retry] = [step('build-broken'), step('retry')];
    expect(retry.invocationId).not.toBe(broken.invocationId);
    const retried = JSON.parse(readFileSync(snapshotFile(retry, 'target/run_results.json'), 'utf8')) as {
      results: { status: string }[];
      args: { which: string };
    };
    expect(retried.results.length).toBeGreaterThan(0);
    expect(retried.results.every((r) => r.status === 'success' || r.status === 'pass')).toBe(true);
    const captures = readCaptureRecords(archive).filter((c) => c.artifacts.some((a) => a.invocation_id === retry.invocationId && a.status === 'captured'));
    expect(captures.length).toBeGreaterThan(0);

    const state = await dbtattic(history.project, ['state', '--last-success', '--json']);
    expect(state.exitCode, state.stderr).toBe(0);
    expect(JSON.parse(state.stdout)).toMatchObject({ invocation_id: retry.invocationId });
  });

  it('show prints what target/compiled and target/run held for a node of a past build, and its lines of dbt.log', async () => {
    const build = step('build');
    const held = (dir: string): string => readFileSync(snapshotFile(build, `target/${dir}/duckshop/models/marts/dim_customers.sql`), 'utf8');
    const shown = await dbtattic(history.project, ['show', 'dim_customers', '--invocation', build.invocationId!, '--json']);
    expect(shown.exitCode, shown.stderr).toBe(0);
    const answer = JSON.parse(shown.stdout) as { compiled: { sql: string }; run: { sql: string }; log: string[] };
    expect(answer.compiled.sql).toBe(held('compiled'));
    expect(answer.run.sql).toBe(held('run'));
    const log = readFileSync(snapshotFile(build, 'dbt.log'), 'utf8').split('\n');
    expect(answer.log.length).toBeGreaterThan(0);
    for (const line of answer.log) expect(log).toContain(line);
    expect(answer.log.some((line) => line.includes('model.duckshop.dim_customers'))).toBe(true);
  });
});

/**
 * The other form users run: the shell wrapper, which captures before each dbt command (the
 * previous command's target/ and logs/), and a last `dbtattic capture` for the final one.
 */
describe.skipIf(!hasRealDbt)('real dbt behind the shell wrapper', () => {
  it('files each command of a shell session under its own invocation, byte for byte', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'attic-wrapper-'));
    try {
      const project = duckshopAt(path.join(dir, 'project'));
      const kept = path.join(dir, 'kept');
      // After each command, a copy of what dbt wrote, for the comparison below.
      const script = `
        dbtattic() { node ${JSON.stringify(BIN)} "$@"; }
        dbt() { dbtattic capture --quiet --phase pre; command dbt "$@"; }
        n=0
        for cmd in "seed" "build" "source freshness" "docs generate"; do
          dbt $cmd >/dev/null || true
          n=$((n+1)); mkdir -p ${JSON.stringify(kept)}/$n && cp target/*.json ${JSON.stringify(kept)}/$n/
        done
        dbtattic capture --quiet`;
      execFileSync('bash', ['-c', script], { cwd: project, env: { ...process.env, ...dbtEnv(project) }, stdio: 'pipe' });

      const records = listArtifactRecordFiles(archiveDirOf(project));
      const expected = new Set<string>();
      for (const step of readdirSync(kept)) {
        for (const file of readdirSync(path.join(kept, step)).filter((f) => f in ARTIFACTS && f !== 'semantic_manifest.json')) {
          const bytes = readFileSync(path.join(kept, step, file));
          const id = (JSON.parse(bytes.toString('utf8')) as { metadata: { invocation_id: string } }).metadata.invocation_id;
          expected.add(`${id} ${ARTIFACTS[file]} ${sha256Of(bytes)}`);
        }
      }
      const filed = new Set(records.filter((r) => r.artifact !== 'semantic_manifest').map((r) => `${r.invocation} ${r.artifact} ${r.sha256}`));
      expect([...filed].sort()).toEqual([...expected].sort());
      // Four commands, four invocations, each with its manifest.
      expect(new Set([...filed].filter((f) => f.includes(' manifest ')).map((f) => f.split(' ')[0])).size).toBe(4);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 180_000);
});
