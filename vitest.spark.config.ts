import { defineConfig } from 'vitest/config';
import SummaryReporter from './test/support/summary-reporter.js';

/**
 * The Spark lane (`npm run test:spark`): a real Spark (PySpark pinned in requirements-spark.txt,
 * test/support/spark-venv.ts makes the venv on the first run) reads the dataset `dbtattic export`
 * writes, and its answers are checked against the store's. Apart from `npm test`: a JVM and a
 * Spark session cost tens of seconds however little they read. CI runs it, with Spark required.
 */
export default defineConfig({
  test: {
    include: ['test/e2e/spark-*.test.ts'],
    testTimeout: 300_000,
    hookTimeout: 600_000,
    reporters: ['default', new SummaryReporter()],
    globalSetup: ['test/support/temp-root.ts', 'test/support/spark-venv.ts'],
  },
});
