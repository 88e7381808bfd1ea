import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/**
 * The Spark of the Spark lane (test/helpers/spark.ts): the venv of requirements-spark.txt, made on
 * the first run where Python and PyPI are (about a minute, then cached by the pins' hash), handed
 * to the workers as DBTATTIC_SPARK_BIN, and the S3A jars (scripts/spark-s3a-jars.sh, Maven
 * Central) as DBTATTIC_SPARK_JARS. Spark runs on Java: without a `java`, there is no Spark either.
 * Whatever is missing is said in DBTATTIC_NO_SPARK_REASON (the jars' in DBTATTIC_NO_S3A_REASON).
 */
export default function setup(): void {
  const java = spawnSync('java', ['-version'], { encoding: 'utf8' });
  if (java.status !== 0) {
    process.env.DBTATTIC_NO_SPARK_REASON = 'no Java (`java -version` failed): PySpark 3.5 runs on Java 8, 11 or 17';
    return;
  }
  if (!process.env.DBTATTIC_SPARK_BIN) {
    const venv = script('spark-venv.sh');
    if (venv.out) process.env.DBTATTIC_SPARK_BIN = venv.out;
    else process.env.DBTATTIC_NO_SPARK_REASON = venv.reason;
  }
  if (!process.env.DBTATTIC_SPARK_JARS) {
    const jars = script('spark-s3a-jars.sh');
    if (jars.out) process.env.DBTATTIC_SPARK_JARS = jars.out;
    else process.env.DBTATTIC_NO_S3A_REASON = jars.reason;
  }
}

function script(name: string): { out: string; reason?: undefined } | { out: null; reason: string } {
  const made = spawnSync('bash', [path.join(ROOT, 'scripts', name)], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  if (made.status === 0) return { out: made.stdout.trim() };
  const said = (made.stderr ?? '').trim().split('\n').at(-1);
  return { out: null, reason: said || made.error?.message || `scripts/${name} exited ${made.status}` };
}
