// The demo with a real dbt: examples/duckshop built by dbt-core and dbt-duckdb (pinned in
// requirements-dbt.txt) through `dbtattic run -- dbt …`, a change, a slim CI build deferring to
// what `dbtattic state --last-success` hands out, new source data, then what dbtattic knows.
// Returns verify's exit status.
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { commitAll, copyDuckshop, dbtEnv, loadSources } from './duckshop.mjs';
import { say, shown } from './demo-say.mjs';

const DBTATTIC_BIN = fileURLToPath(new URL('../bin/dbtattic.js', import.meta.url));

export function realDbtDemo(work, bin) {
  const project = copyDuckshop(path.join(work, 'duckshop'));
  const env = { ...process.env, ...dbtEnv(project, bin) };
  const run = (file, args, stdio = 'inherit') => spawnSync(file, args, { cwd: project, env, stdio, encoding: 'utf8' });
  const attic = (args, stdio) => run(process.execPath, [DBTATTIC_BIN, ...args], stdio);
  const show = shown((args) => attic(args).status ?? 1);
  const dbt = (args, note) => {
    say(`$ dbtattic run -- dbt ${args.join(' ')}${note ? `        # ${note}` : ''}`);
    return attic(['run', '--', 'dbt', ...args]).status;
  };

  say(`dbtattic demo: a real dbt (${dbtVersion(run)}) on examples/duckshop, in ${project}`);
  say("$ python load_sources.py        # the shop's raw tables, which dbt reads as sources");
  loadSources(project, bin);
  dbt(['build'], 'seeds, models, a snapshot, tests: the first build');
  dbt(['source', 'freshness']);
  dbt(['docs', 'generate']);

  const model = path.join(project, 'models', 'marts', 'dim_products.sql');
  writeFileSync(model, readFileSync(model, 'utf8').replace('    products.price,\n', '    products.price,\n    products.price * 1.2 as price_with_vat,\n'));
  commitAll(project, 'dim_products: price with VAT');
  say('# a change, committed: dim_products gains a column. Slim CI builds only what it touches,');
  say('# deferring the rest to the last successful build dbtattic kept:');
  const state = attic(['state', '--last-success'], ['ignore', 'pipe', 'inherit']).stdout.trim();
  say('$ dbtattic state --last-success');
  process.stdout.write(`${state}\n`);
  dbt(['build', '--select', 'state:modified+', '--defer', '--state', state], 'slim CI');

  say('$ python load_sources.py --batches 2        # new orders, and two customers changed their email');
  loadSources(project, bin, ['--batches', '2']);
  dbt(['build'], 'fct_orders takes the incremental path; the snapshot records the changes');

  show(['history']);
  show(['inspect', '@main'], 'the code, data and run behind the latest invocation');
  show(
    [
      'query',
      "select unique_id, status, execution_time from run_result join invocation using (invocation_id) where command = 'build' order by execution_time desc limit 5",
    ],
    'the slowest nodes of the builds',
  );
  show(['query', 'select unique_id, change_kind, what_changed from v_node_changes order by to_seq limit 8']);
  show(['info']);
  return show(['verify']);
}

function dbtVersion(run) {
  const printed = run('dbt', ['--version'], 'pipe').stdout ?? '';
  return `dbt-core ${/installed: (\S+)/.exec(printed)?.[1] ?? '?'}, dbt-duckdb ${/duckdb: (\S+)/.exec(printed)?.[1] ?? '?'}`;
}
