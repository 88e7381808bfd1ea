import { defineConfig } from 'vitest/config';
import SlowestFirst from './test/support/slowest-first.js';
import SummaryReporter from './test/support/summary-reporter.js';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'vscode/test/unit/**/*.test.ts'],
    // The smoke suite runs against the installed package: vitest.smoke.config.ts; the tests of
    // a real dbt in their own lane: vitest.dbt.config.ts.
    exclude: ['test/smoke/**', 'test/e2e/real-dbt-*.test.ts', '**/node_modules/**'],
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
