import { execFile } from 'node:child_process';
import { appendFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { commitAll, copyDuckshop } from '../../scripts/duckshop.mjs';
import { dbtattic } from '../helpers/dbt-history.js';
import { dbtBin, dbtEnv, hasRealDbt, loadSources, NO_DBT_REASON } from '../helpers/real-dbt.js';

/**
 * Plan's promise, proven on the warehouse (issue 43): a warehouse that only ever builds what
 * `dbtattic plan --format selector` selects must hold, after every change, what a full `dbt build`
 * from scratch makes of the same code and the same source data. Two copies of duckshop:
 * A, long-lived, each step `dbt source freshness`, `dbt parse`, plan, then `dbt build --select
 * <plan's selector>`, all through `dbtattic run`; B, a new DuckDB file each step, its sources
 * loaded the same way, built in full with a plain dbt. After each step every table and view of
 * A's dbt schemas must equal B's row for row (`EXCEPT ALL` both ways).
 *
 * The test's copy adds what duckshop lacks: a source without a freshness check (`ledger`, in
 * schema `extra`) and a model that reads a table no source declares (`extra.notes` by name).
 * The snapshot's schema is left out of the comparison: a snapshot keeps the history of every
 * build, which a build from scratch cannot have, whatever the plan said.
 *
 * Sources are loaded with `--age-hours 0`: `loaded_at` is when the rows arrived, and a loader
 * that stamped new rows an hour back would make them older than a build they came after, which
 * no plan could see.
 */
const run = promisify(execFile);

/** Catalog names: dbt-duckdb qualifies a view's relations with its file's name, so each file is attached under its own. */
const A_DB = 'warehouse';
const B_DB = 'fresh';

interface DataChange {
  /** load_sources.py --batches N; null keeps the raw tables as they are. */
  batches?: 1 | 2;
  /** Statements run after the load, in both databases (B replays every step's). */
  sql?: string[];
}

interface Step {
  name: string;
  code?: (project: string) => void;
  data?: () => DataChange;
}

/** Naive UTC to the second, as load_sources.py stamps `loaded_at`. */
const nowUtc = (): string => new Date().toISOString().slice(0, 19).replace('T', ' ');

const STEPS: Step[] = [
  { name: 'initial full build' },
  {
    name: 'model code edit',
    code: (p) => edit(p, 'models/staging/stg_customers.sql', "first_name || ' ' || last_name", "trim(first_name) || ' ' || trim(last_name)"),
  },
  { name: 'new rows, source with freshness', data: () => ({ batches: 2 }) },
  { name: 'new rows, source without freshness', data: () => ({ sql: ['insert into extra.adjustments values (3, 12, -450), (4, 40, -1200)'] }) },
  {
    name: 'incremental model new data',
    data: () => {
      const at = nowUtc();
      return {
        sql: [
          `update raw.orders set status = 'returned', updated_at = timestamp '2025-04-01 12:00:00', loaded_at = timestamp '${at}' where order_id > 60 and status = 'completed'`,
          `insert into raw.orders values (81, 5, timestamp '2025-04-02 09:00:00', 'placed', timestamp '2025-04-02 09:00:00', timestamp '${at}')`,
          `insert into raw.order_items values (1000, 81, 2, 3, timestamp '${at}')`,
        ],
      };
    },
  },
  { name: 'new rows, table no source declares', data: () => ({ sql: ["insert into extra.notes values (3, 'third note'), (4, 'fourth note')"] }) },
];

/** The test's additions to duckshop: a source without freshness and a model reading an undeclared table. */
function addToProject(project: string): void {
  writeFileSync(
    path.join(project, 'models/staging/_ledger.yml'),
    'version: 2\n\nsources:\n  - name: ledger\n    description: Refunds and corrections, loaded with no loaded_at and no freshness check.\n    schema: extra\n    tables:\n      - name: adjustments\n',
  );
  writeFileSync(
    path.join(project, 'models/marts/fct_adjustments.sql'),
    "select adjustment_id, order_id, amount_cents\nfrom {{ source('ledger', 'adjustments') }}\n",
  );
  writeFileSync(
    path.join(project, 'models/marts/undeclared_notes.sql'),
    '-- Reads a table by name: no source declares it.\nselect note_id, body\nfrom extra.notes\n',
  );
}

const EXTRA_SCHEMA = [
  'create schema if not exists extra',
  'create or replace table extra.adjustments (adjustment_id integer, order_id integer, amount_cents integer)',
  'insert into extra.adjustments values (1, 3, -500), (2, 9, -250)',
  'create or replace table extra.notes (note_id integer, body varchar)',
  "insert into extra.notes values (1, 'first note'), (2, 'second note')",
];

/** Runs statements against one file, or compares two (A attached as `warehouse`, B as `fresh`) and prints JSON. */
const DUCK_PY = `
import json, sys, duckdb
mode = sys.argv[1]
if mode == 'sql':
    with duckdb.connect(sys.argv[2]) as con:
        for stmt in json.loads(sys.argv[3]):
            con.execute(stmt)
    sys.exit(0)
a, b = sys.argv[2], sys.argv[3]
con = duckdb.connect()
con.execute(f"attach '{a}' as ${A_DB} (read_only)")
con.execute(f"attach '{b}' as ${B_DB} (read_only)")
def relations(db):
    return sorted(con.execute(
        "select table_schema, table_name, table_type from information_schema.tables "
        "where table_catalog = ? and table_schema like 'main%' and table_schema <> 'main_snapshots'", [db]).fetchall())
ra, rb = relations('${A_DB}'), relations('${B_DB}')
out = {'a': [f'{s}.{t}' for s, t, _ in ra], 'b': [f'{s}.{t}' for s, t, _ in rb], 'diffs': []}
for schema, table, kind in ra:
    if (schema, table, kind) not in rb:
        continue
    qa, qb = f'${A_DB}."{schema}"."{table}"', f'${B_DB}."{schema}"."{table}"'
    cols_a = [r[0] for r in con.execute(f'select * from {qa} limit 0').description]
    cols_b = [r[0] for r in con.execute(f'select * from {qb} limit 0').description]
    only_a = con.execute(f'select * from {qa} except all select * from {qb}').fetchall() if cols_a == cols_b else []
    only_b = con.execute(f'select * from {qb} except all select * from {qa}').fetchall() if cols_a == cols_b else []
    rows = con.execute(f'select count(*) from {qa}').fetchone()[0]
    if cols_a != cols_b or only_a or only_b:
        out['diffs'].append({'relation': f'{schema}.{table}', 'kind': kind, 'rows_in_a': rows, 'columns_a': cols_a, 'columns_b': cols_b,
                             'only_in_a': [list(map(str, r)) for r in only_a[:5]], 'only_in_b': [list(map(str, r)) for r in only_b[:5]],
                             'count_only_in_a': len(only_a), 'count_only_in_b': len(only_b)})
print(json.dumps(out))
`;

interface Comparison {
  a: string[];
  b: string[];
  diffs: { relation: string; kind: string; only_in_a: string[][]; only_in_b: string[][]; count_only_in_a: number; count_only_in_b: number }[];
}

interface PlanJson {
  counts: { reuse: number; build: number; by_reason: Record<string, number> };
  nodes: { unique_id: string; selector: string; verdict: 'reuse' | 'build'; reason: string }[];
}

if (!hasRealDbt) console.warn(`real-dbt-plan-warehouse: skipped, ${NO_DBT_REASON}`);

describe.skipIf(!hasRealDbt)('plan on the warehouse: building only what plan selects leaves what a full build makes', () => {
  it('equals a from-scratch build, relation by relation, after each kind of change', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'attic-plan-warehouse-'));
    const rows: string[] = [];
    try {
      const duckPy = path.join(dir, 'duck.py');
      writeFileSync(duckPy, DUCK_PY);
      const python = path.join(dbtBin!, 'python');
      const sql = (db: string, statements: string[]) => run(python, [duckPy, 'sql', db, JSON.stringify(statements)]);

      const a = makeProject(path.join(dir, 'a'));
      const b = makeProject(path.join(dir, 'b'));
      const aDb = path.join(a, `${A_DB}.duckdb`);
      let batches: 1 | 2 = 1;
      const replay: string[] = [];
      loadSources(a, ['--batches', '1', '--age-hours', '0', '--db', aDb]);
      await sql(aDb, EXTRA_SCHEMA);

      for (const [i, step] of STEPS.entries()) {
        const started = performance.now();
        const at = (what: string): string => `step ${i + 1} (${step.name}): ${what}`;
        step.code?.(a);
        step.code?.(b);
        const change = step.data?.() ?? {};
        if (change.batches !== undefined) {
          batches = change.batches;
          loadSources(a, ['--batches', String(batches), '--age-hours', '0', '--db', aDb]);
        }
        if (change.sql) {
          await sql(aDb, change.sql);
          replay.push(...change.sql);
        }

        // B: a new file, the same sources, a full build; meanwhile A plans and builds.
        const bDb = path.join(dir, `b-${i + 1}`, `${B_DB}.duckdb`);
        mkdirSync(path.dirname(bDb));
        const fresh = (async () => {
          loadSources(b, ['--batches', String(batches), '--age-hours', '0', '--db', bDb]);
          await sql(bDb, [...EXTRA_SCHEMA, ...replay]);
          return run(path.join(dbtBin!, 'dbt'), ['build'], { cwd: b, env: { ...process.env, ...dbtEnv(b, { DBTATTIC_EXAMPLE_DB: bDb }) }, maxBuffer: 1 << 26 });
        })();
        fresh.catch(() => undefined); // awaited below

        let counts = 'full build';
        if (i === 0) {
          await dbtOk(a, ['build'], at('full build'));
        } else {
          await dbtOk(a, ['source', 'freshness'], at('source freshness'));
          await dbtOk(a, ['parse'], at('parse'));
          const json = await dbtattic(a, ['plan', '--json']);
          expect(json.exitCode, at(`plan --json: ${json.stderr}`)).toBe(0);
          const plan = JSON.parse(json.stdout) as PlanJson;
          const selector = await dbtattic(a, ['plan', '--format', 'selector']);
          expect(selector.exitCode, at(`plan --format selector: ${selector.stderr}`)).toBe(0);
          const words = selector.stdout.split(/\s+/).filter(Boolean);
          expect(words.sort(), at('the selector names the nodes --json says build')).toEqual(
            plan.nodes
              .filter((n) => n.verdict === 'build')
              .map((n) => n.selector)
              .sort(),
          );
          if (words.length > 0) await dbtOk(a, ['build', '--select', ...words], at('selected build'));
          counts = `${plan.counts.reuse} reuse, ${plan.counts.build} build ${JSON.stringify(plan.counts.by_reason)}`;
          console.log(
            `${at('plan builds')}\n${plan.nodes
              .filter((n) => n.verdict === 'build')
              .map((n) => `  ${n.verdict}\t${n.reason}\t${n.unique_id}`)
              .join('\n')}`,
          );
        }
        await fresh; // rejects, with dbt's output, unless the full build passed

        const compared = JSON.parse((await run(python, [duckPy, 'compare', aDb, bDb], { maxBuffer: 1 << 26 })).stdout) as Comparison;
        expect(compared.a.length, at('relations compared')).toBeGreaterThan(10);
        expect(compared.a, at('the same relations')).toEqual(compared.b);
        rows.push([`${i + 1}. ${step.name}`, counts, compared.diffs.length, ((performance.now() - started) / 1000).toFixed(1)].join('\t'));
        // A stale relation is a reuse verdict plan should not have given: say which checks it passed.
        const explained: string[] = [];
        for (const diff of compared.diffs) explained.push((await dbtattic(a, ['explain', diff.relation.split('.').at(-1)!])).stdout);
        expect(
          compared.diffs,
          at(`relations that differ from a build from scratch:\n${JSON.stringify(compared.diffs, null, 1)}\n${explained.join('\n')}`),
        ).toEqual([]);
      }
    } finally {
      console.log(['step\tplan\trelations differing\tseconds', ...rows].join('\n'));
      rmSync(dir, { recursive: true, force: true });
    }
  }, 600_000);
});

/** A copy of duckshop with the test's additions, committed, its warehouse outside target/. */
function makeProject(dir: string): string {
  copyDuckshop(dir);
  addToProject(dir);
  commitAll(dir, 'a source without freshness, a model reading an undeclared table');
  appendFileSync(path.join(dir, '.git', 'info', 'exclude'), '.dbtattic/\n*.duckdb\n');
  return dir;
}

async function dbtOk(project: string, args: string[], what: string): Promise<void> {
  const result = await dbtattic(project, ['run', '--', 'dbt', ...args], { DBTATTIC_EXAMPLE_DB: path.join(project, `${A_DB}.duckdb`) });
  expect(result.exitCode, `${what}\n${result.stdout}\n${result.stderr}`).toBe(0);
}

function edit(project: string, file: string, from: string, to: string): void {
  const at = path.join(project, file);
  const before = readFileSync(at, 'utf8');
  const after = before.replace(from, to);
  if (after === before) throw new Error(`the edit of ${file} changed nothing`);
  writeFileSync(at, after);
}
