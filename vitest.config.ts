import { defineConfig } from 'vitest/config';
import SlowestFirst from './test/support/slowest-first.js';
import SummaryReporter from './test/support/summary-reporter.js';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'vscode/test/unit/**/*.test.ts'],
    // The smoke suite runs against the installed package: vitest.smoke.config.ts; the tests of
    // a real dbt and of a real Spark in their own lanes: vitest.dbt.config.ts, vitest.spark.config.ts.
    exclude: ['test/smoke/**', 'test/e2e/real-dbt-*.test.ts', 'test/e2e/spark-*.test.ts', '**/node_modules/**'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // Two cores, three workers: a third fills the time the others spend waiting on child
    // processes, S3 and locks.
    maxWorkers: 3,
    reporters: ['default', new SummaryReporter()],
    sequence: { sequencer: SlowestFirst },
    globalSetup: ['test/support/temp-root.ts'],
  },
});
