import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The real Spark of the Spark lane (issue 46): the venv's bin directory in DBTATTIC_SPARK_BIN,
 * which the lane's global setup fills (test/support/spark-venv.ts). Absent, the tests are skipped
 * saying why; with DBTATTIC_REQUIRE_SPARK=1 (CI), absent is a failure.
 */
export const sparkBin: string | null = process.env.DBTATTIC_SPARK_BIN ?? null;
export const hasSpark = sparkBin !== null && existsSync(path.join(sparkBin, 'python'));
/** The jars S3A needs (scripts/spark-s3a-jars.sh), comma-separated; null when they could not be fetched. */
export const s3aJars: string[] | null = process.env.DBTATTIC_SPARK_JARS ? process.env.DBTATTIC_SPARK_JARS.split(',') : null;

const missing = process.env.DBTATTIC_NO_SPARK_REASON ?? (sparkBin ? `no python in DBTATTIC_SPARK_BIN=${sparkBin}` : 'DBTATTIC_SPARK_BIN is not set');
if (!hasSpark && process.env.DBTATTIC_REQUIRE_SPARK === '1') {
  throw new Error(`DBTATTIC_REQUIRE_SPARK=1 but no Spark (${missing}): run scripts/spark-venv.sh, with Java 17 installed.`);
}
export const NO_SPARK_REASON = `no Spark (${missing}): scripts/spark-venv.sh makes one from PyPI; it needs Java`;

const SCRIPT = path.join(path.dirname(fileURLToPath(import.meta.url)), 'spark_questions.py');

export interface SparkQuestion {
  name: string;
  /** Which of the request's datasets the question reads. */
  dataset: string;
  /** Spark SQL; `{t:table}` names a table of the dataset. */
  sql: string;
}

export interface SparkRequest {
  datasets: Record<string, string>;
  tables: readonly string[];
  s3: { endpoint: string; access_key: string; secret_key: string; region?: string; jars: string[] } | null;
  questions: SparkQuestion[];
}

export interface SparkAnswers {
  answers: Record<string, Record<string, unknown>[]>;
  /** The session's start, each dataset's listing, each question, and the total. */
  seconds: Record<string, number>;
}

/** One Spark session (test/helpers/spark_questions.py) answering every question of `request`. */
export function askSpark(request: SparkRequest): Promise<SparkAnswers> {
  return new Promise((resolve, reject) => {
    const child = spawn(path.join(sparkBin!, 'python'), [SCRIPT], {
      stdio: ['pipe', 'pipe', 'pipe'],
      env: { ...process.env, PYSPARK_PYTHON: path.join(sparkBin!, 'python') },
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString('utf8')));
    child.on('error', reject);
    child.on('close', (code) => {
      if (code !== 0) reject(new Error(`spark_questions.py exited ${code}:\n${err.slice(-4000)}`));
      else resolve(JSON.parse(out) as SparkAnswers);
    });
    child.stdin.end(JSON.stringify(request));
  });
}
