import { defineConfig } from 'vitest/config';
import SummaryReporter from './test/support/summary-reporter.js';

/**
 * The smoke suite (test/smoke/): the packed tarball installed globally and run on the Node
 * first on PATH, for what differs between Node lines. CI runs it on 22, 24 and 26
 * (`npm run test:smoke` with .ci/node-line's bin first on PATH); README: Development.
 */
export default defineConfig({
  test: {
    include: ['test/smoke/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 240_000,
    maxWorkers: 2,
    reporters: ['default', new SummaryReporter()],
    globalSetup: ['test/support/temp-root.ts', 'test/smoke/install-package.ts'],
  },
});
