// The Spark side of bench/export.mjs (issue 46): a real Spark, the Spark lane's (the PySpark
// pinned in requirements-spark.txt, scripts/spark-venv.sh, on the machine's Java), answers the
// run-history questions over the exported dataset through the lane's own runner
// (test/helpers/spark_questions.py): one session, whose start (the JVM's and Spark's) is timed
// apart from the listing of the tables and from each question. Not cached: a question reads the
// files, as a user's first question does. Without Java or the venv, the reason, and no figures.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { FAILED, measurePeers, runHistoryQuestions } from './history-peers.mjs';

const root = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');
const RUNNER = path.join(root, 'test', 'helpers', 'spark_questions.py');

const JOINED = `{t:run_result} AS r JOIN {t:invocation} AS i ON i.invocation_id = r.invocation_id AND i.project = r.project`;

/**
 * history-peers.mjs's runHistoryQuestions, asked of the dataset: every result beside its run
 * (the Spark lane's run-history question, counted), and `history`'s table of the newest runs.
 */
const SPARK_RUN_HISTORY = {
  v_run_history: `SELECT count(*) AS n FROM ${JOINED}`,
  history: `SELECT r.invocation_id, max(i.ordered_at) AS ordered_at, max(i.command) AS command,
      count_if(r.status IN ${FAILED}) AS failed, count(*) AS results
    FROM ${JOINED} GROUP BY r.project, r.invocation_id ORDER BY 2 DESC LIMIT 20`,
};

/** The venv's bin directory, or why there is no Spark here. */
function findSpark() {
  if (spawnSync('java', ['-version']).status !== 0) return { reason: 'no Java (`java -version` failed): PySpark 3.5 runs on Java 8, 11 or 17' };
  const venv = spawnSync('bash', [path.join(root, 'scripts', 'spark-venv.sh')], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  if (venv.status === 0) return { bin: venv.stdout.trim() };
  return { reason: `scripts/spark-venv.sh failed: ${(venv.stderr ?? '').trim().split('\n').at(-1) || venv.error?.message}` };
}

/** Spark's answers to `questions` ({ name: sql }) over the dataset: { answers, seconds } as the runner gives them. */
function askSparkOf(bin, dataset, questions) {
  const request = {
    datasets: { local: dataset },
    tables: ['invocation', 'run_result'],
    s3: null,
    cache: false,
    questions: Object.entries(questions).map(([name, sql]) => ({ name, dataset: 'local', sql })),
  };
  const python = path.join(bin, 'python');
  const run = spawnSync(python, [RUNNER], {
    input: JSON.stringify(request),
    encoding: 'utf8',
    maxBuffer: 1 << 26,
    env: { ...process.env, PYSPARK_PYTHON: python },
  });
  if (run.status !== 0) throw new Error(`spark_questions.py exited ${run.status ?? run.signal}:\n${(run.stderr ?? '').slice(-4000)}`);
  return JSON.parse(run.stdout);
}

/** Every run's run_results.json as dbt left it, for the peer: runsDir/<run>/run_results.json. */
function writeRawResults(history, runsDir) {
  const written = path.join(runsDir, `written-${history.runs}`);
  if (existsSync(written)) return;
  for (let r = 1; r <= history.runs; r++) {
    const dir = path.join(runsDir, String(r).padStart(5, '0'));
    mkdirSync(dir, { recursive: true });
    history.writeRunResults(r, dir);
  }
  writeFileSync(written, '');
  // Gigabytes for the kernel to write back: not while a question is timed.
  spawnSync('sync');
}

/** The runs history-peers.mjs's `history` and Spark list alike: id, failed and results, newest first. */
const historyRows = (rows) => rows.map((r) => [r.invocation_id, Number(r.failed), Number(r.results)].join(' '));

/**
 * Spark's answers to the run-history questions over the dataset (its session's start apart),
 * beside read_json's over the raw run_results.json of the same runs (`history`, a ScaledHistory,
 * writes them into runsDir), in one in-memory DuckDB. The budget is on Spark's answer once its
 * session runs: listing the tables and the question. Without Spark, { skipped: why }.
 */
export async function measureRunHistory(history, dataset, runsDir, budgetS) {
  const spark = findSpark();
  if (!spark.bin) {
    process.stderr.write(`export bench: Spark's run-history question SKIPPED: ${spark.reason}\n`);
    return { skipped: spark.reason };
  }
  writeRawResults(history, runsDir);
  const started = performance.now();
  const { answers, seconds } = askSparkOf(spark.bin, dataset, SPARK_RUN_HISTORY);
  const process_s = (performance.now() - started) / 1000;
  const peers = await measurePeers(runHistoryQuestions(runsDir));
  const same =
    Number(answers.v_run_history[0].n) === Number(peers.v_run_history.rows[0].n) &&
    historyRows(answers.history).join() === historyRows(peers.history.rows).join();
  const answer_s = seconds['local listed'] + seconds.v_run_history;
  const question = (name) => ({ spark_s: seconds[name], read_json_s: +(peers[name].ms / 1000).toFixed(2) });
  return {
    spark_process_s: +process_s.toFixed(2),
    spark_session_s: seconds.session,
    spark_listing_s: seconds['local listed'],
    v_run_history: { ...question('v_run_history'), rows: Number(peers.v_run_history.rows[0].n) },
    history: question('history'),
    same_answers: same,
    spark_answer_s: +answer_s.toFixed(2),
    budget_s: budgetS,
    pass: same && answer_s < budgetS,
  };
}
