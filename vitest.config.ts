import { defineConfig } from 'vitest/config';
import SummaryReporter from './test/support/summary-reporter.js';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'vscode/test/unit/**/*.test.ts'],
    // The smoke suite runs against the installed package: vitest.smoke.config.ts.
    exclude: ['test/smoke/**', '**/node_modules/**'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // Two cores on CI: DuckDB and child-process tests fight for them.
    maxWorkers: 2,
    reporters: ['default', new SummaryReporter()],
    globalSetup: ['test/support/temp-root.ts'],
  },
});
