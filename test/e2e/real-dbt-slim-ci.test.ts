import { execFileSync } from 'node:child_process';
import { appendFileSync, cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { dbtattic } from '../helpers/dbt-history.js';
import { type DbtSession, startDbtSession } from '../helpers/dbt-session.js';
import { dbtBin, dbtEnv, duckshopAt, hasRealDbt, NO_DBT_REASON } from '../helpers/real-dbt.js';

/**
 * Slim CI as dbt itself sees it (issue 43): after each change to examples/duckshop, what a real
 * dbt's `state:modified+` selects against the state dbtattic hands out must be what it selects
 * against a plain copy of target/ the test took itself after the last successful build. Then the
 * slim build runs, deferring to dbtattic's state, and its success becomes the next reference.
 *
 * `dbt ls` keeps every resource type: the --state directory dbtattic writes holds the whole
 * manifest (sources, exposures, unit tests, macros), and `dbt build` selects unit tests and
 * checks exposures too, so narrowing the list would leave those parts of the state unchecked.
 * Unique ids, not names: a test's name and a model's may coincide.
 *
 * The `dbt ls` questions go to one dbt session (test/helpers/dbt-session.ts: dbt imported once,
 * each question a fresh `dbtRunner().invoke`, the same answers as the CLI's), as a `dbt` process
 * each would spend most of its time starting Python; the builds, what dbtattic is for, run as
 * `dbtattic run -- dbt build` processes. Those builds (about 60 s on two cores) and the 55
 * explains (about 13 s, a plan each) are most of what the file now takes; the 44 questions, 15 s.
 */
interface Change {
  name: string;
  /** Edits the project; a change that returns an environment is no commit but the CI's new environment. */
  // biome-ignore lint/suspicious/noConfusingVoidType: most edits are statements that return nothing
  apply: (project: string) => Record<string, string> | void;
}

const CHANGES: Change[] = [
  { name: 'no change', apply: () => undefined },
  {
    name: 'model logic',
    apply: (p) => edit(p, 'models/staging/stg_customers.sql', "first_name || ' ' || last_name", "trim(first_name) || ' ' || trim(last_name)"),
  },
  { name: 'model comment', apply: (p) => edit(p, 'models/marts/dim_products.sql', 'select\n', '-- Units and amount ordered per product.\nselect\n') },
  {
    name: 'macro used by four models',
    apply: (p) => edit(p, 'macros/cents_to_amount.sql', 'cast({{ column }} / 100.0 as', 'cast(round({{ column }} / 100.0, 2) as'),
  },
  { name: 'var value', apply: (p) => edit(p, 'dbt_project.yml', 'high_value_threshold: 150', 'high_value_threshold: 140') },
  { name: 'env var', apply: () => ({ DBTATTIC_EXAMPLE_CURRENCY: 'USD' }) },
  { name: 'seed rows', apply: (p) => edit(p, 'seeds/payment_methods.csv', 'voucher,Voucher,false\n', 'voucher,Voucher,false\nwallet,Mobile wallet,false\n') },
  {
    name: 'generic test added',
    apply: (p) =>
      edit(p, 'models/marts/_marts.yml', '      - name: currency\n', '      - name: order_date\n        data_tests: [not_null]\n      - name: currency\n'),
  },
  {
    name: 'config: materialized',
    apply: (p) => edit(p, 'models/marts/_marts.yml', '  - name: fct_daily_revenue\n', '  - name: fct_daily_revenue\n    config:\n      materialized: view\n'),
  },
  {
    name: 'new model',
    apply: (p) =>
      writeFileSync(path.join(p, 'models/marts/dim_payment_methods.sql'), "select payment_method, method_name, is_card\nfrom {{ ref('payment_methods') }}\n"),
  },
  {
    name: 'deleted model',
    apply: (p) => {
      rmSync(path.join(p, 'models/marts/dim_products.sql'));
      edit(p, 'models/marts/_marts.yml', / {2}- name: dim_products\n(?: {4}.*\n| {6}.*\n)*/, '');
    },
  },
];

/** dbtattic's last success (README, "Slim CI"): dbt exited 0, at least one result, none failed. */
const FAILED = new Set(['error', 'fail', 'runtime error', 'partial success']);

if (!hasRealDbt) console.warn(`real-dbt-slim-ci: skipped, ${NO_DBT_REASON}`);

describe.skipIf(!hasRealDbt)('slim CI with real dbt: state:modified+ against dbtattic state and against target/', () => {
  it('selects what dbt selects against its own target/ copy, after each kind of change', async () => {
    // Python imports dbt while the project is made and first built.
    const starting = startDbtSession(dbtBin!);
    starting.catch(() => undefined); // awaited below; a failure to start is reported there
    const dir = mkdtempSync(path.join(os.tmpdir(), 'attic-slim-ci-'));
    try {
      const project = duckshopAt(path.join(dir, 'project'));
      appendFileSync(path.join(project, '.git', 'info', 'exclude'), '.dbtattic/\n');
      const reference = path.join(dir, 'reference-target');
      let env: Record<string, string> = {};
      const first = await dbtattic(project, ['run', '--', 'dbt', 'build'], env);
      expect(first.exitCode, first.stdout + first.stderr).toBe(0);
      cpSync(path.join(project, 'target'), reference, { recursive: true });
      const dbt = await starting;

      const rows: string[] = [];
      for (const change of CHANGES) {
        const started = performance.now();
        env = { ...env, ...(change.apply(project) ?? {}) };
        if (gitStatus(project)) commit(project, change.name);
        const at = (what: string): string => `${change.name}: ${what}`;

        const expected = await modifiedBy(dbt, project, reference, env);
        const lastSuccess = await statePath(project, ['--last-success'], env);
        expect.soft(await modifiedBy(dbt, project, lastSuccess, env), at('state --last-success')).toEqual(expected);
        const perNode = await modifiedBy(dbt, project, await statePath(project, ['--per-node'], env), env);
        expect.soft(perNode, at('state --per-node')).toEqual(expected);

        // explain plans target/'s manifest, which the dbt ls above just wrote from the changed project.
        for (const node of plannable(project, perNode)) {
          const explained = await runCli(['explain', node, '--json'], { cwd: project, env });
          expect.soft(explained.exitCode, at(`explain ${node}: ${explained.stderr}`)).toBe(0);
          if (explained.exitCode === 0) expect.soft((JSON.parse(explained.stdout) as { unique_id: string }).unique_id, at(`explain ${node}`)).toBe(node);
        }
        // explain captured that manifest: the newest in the archive is now the changed project's, no build's.
        const perNodeAfterCapture = await modifiedBy(dbt, project, await statePath(project, ['--per-node'], env), env);
        expect.soft(perNodeAfterCapture, at('state --per-node once the changed manifest is captured')).toEqual(expected);

        const build = await dbtattic(project, ['run', '--', 'dbt', 'build', '-s', 'state:modified+', '--defer', '--state', lastSuccess], env);
        expect(build.exitCode, at(`slim build\n${build.stdout}\n${build.stderr}`)).toBe(0);
        // The next slim build compares with this one's target/ if it deployed anything: dbt writes
        // the whole project's manifest whatever it built, and that is the manifest --last-success
        // hands out. A build that selected nothing ("Nothing to do", no results) is no deployment:
        // the reference stays the older target/, as the newest success stays the older build.
        const results = resultsOf(project);
        if (results.length > 0 && !results.some((r) => FAILED.has(r.status))) {
          rmSync(reference, { recursive: true, force: true });
          cpSync(path.join(project, 'target'), reference, { recursive: true });
        }
        const seconds = ((performance.now() - started) / 1000).toFixed(1);
        rows.push([change.name, expected.length, perNode.length, perNodeAfterCapture.length, results.length, seconds].join('\t'));
      }
      console.log(['change\tdbt selects\tper-node selects\tper-node after capture\tbuild results\tseconds', ...rows].join('\n'));
    } finally {
      await starting.then(
        (dbt) => dbt.close(),
        () => undefined,
      );
      rmSync(dir, { recursive: true, force: true });
    }
  }, 900_000);
});

function edit(project: string, file: string, from: string | RegExp, to: string): void {
  const at = path.join(project, file);
  const before = readFileSync(at, 'utf8');
  const after = before.replace(from, to);
  if (after === before) throw new Error(`the edit of ${file} changed nothing`);
  writeFileSync(at, after);
}

function git(project: string, ...args: string[]): string {
  const env = { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@example.com', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@example.com' };
  return execFileSync('git', args, { cwd: project, env, encoding: 'utf8' });
}

const gitStatus = (project: string): string => git(project, 'status', '--porcelain').trim();

function commit(project: string, message: string): void {
  git(project, 'add', '-A');
  git(project, 'commit', '-q', '-m', message);
}

/** What dbt itself selects: `dbt ls -s state:modified+ --state DIR`, unique ids sorted. */
async function modifiedBy(dbt: DbtSession, project: string, state: string, env: Record<string, string>): Promise<string[]> {
  const args = ['-q', 'ls', '-s', 'state:modified+', '--state', state, '--output', 'json', '--output-keys', 'unique_id'];
  const ls = await dbt.request(args, { cwd: project, env: dbtEnv(project, env) });
  if (ls.exit !== 0 || ls.result === null) throw new Error(`dbt ${args.join(' ')} exited ${ls.exit}: ${ls.error}`);
  return ls.result.map((item) => (JSON.parse(item) as { unique_id: string }).unique_id).sort();
}

async function statePath(project: string, args: string[], env: Record<string, string>): Promise<string> {
  const state = await dbtattic(project, ['state', ...args], env);
  expect(state.exitCode, `state ${args.join(' ')}: ${state.stderr}`).toBe(0);
  const dir = state.stdout.trim();
  expect(existsSync(path.join(dir, 'manifest.json')), dir).toBe(true);
  return dir;
}

/**
 * The selected nodes `plan` gives a verdict: models, seeds, snapshots and tests (docs/plan.md).
 * Ephemeral models are left out as plan leaves them out: dbt never builds one, and its SQL is
 * checked as part of each child's. Unit tests and exposures have no verdict either.
 */
function plannable(project: string, selected: string[]): string[] {
  const manifest = JSON.parse(readFileSync(path.join(project, 'target', 'manifest.json'), 'utf8')) as {
    nodes: Record<string, { config?: { materialized?: string } }>;
  };
  return selected.filter((id) => /^(model|seed|snapshot|test)\./.test(id) && manifest.nodes[id]?.config?.materialized !== 'ephemeral');
}

function resultsOf(project: string): { status: string }[] {
  const file = path.join(project, 'target', 'run_results.json');
  return existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as { results: { status: string }[] }).results : [];
}
