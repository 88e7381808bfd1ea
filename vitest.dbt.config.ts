import { defineConfig } from 'vitest/config';
import SlowestFirst from './test/support/slowest-first.js';
import SummaryReporter from './test/support/summary-reporter.js';

/**
 * The real-dbt lane (`npm run test:dbt`): the tests whose subject is dbt's own behaviour, each
 * running dbt-core from the pinned venv (test/support/real-dbt-venv.ts makes it on the first run).
 * Apart from `npm test`, whose budget (6 minutes on two cores) they would double: a dbt command
 * costs seconds of Python however little it does. CI runs both, with the venv required.
 */
export default defineConfig({
  test: {
    include: ['test/e2e/real-dbt-*.test.ts'],
    testTimeout: 120_000,
    hookTimeout: 600_000,
    maxWorkers: 3,
    reporters: ['default', new SummaryReporter()],
    sequence: { sequencer: SlowestFirst },
    globalSetup: ['test/support/temp-root.ts', 'test/support/real-dbt-venv.ts'],
  },
});
