import { defineConfig } from 'vitest/config';

/**
 * The tests StrykerJS runs against each mutant (`npm run mutate`): the unit tests of the scopes
 * chosen in stryker.config.mjs, which import src/ directly. End-to-end tests run the built CLI
 * from dist/, which Stryker does not mutate, so they cannot kill a mutant.
 */
const listed = process.env.DBTATTIC_MUTATE_TESTS;
const tests = listed ? (JSON.parse(listed) as string[]) : undefined;

export default defineConfig({
  test: {
    include: tests ?? ['test/unit/{archive,state,extract}/**/*.test.ts', 'test/contract/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    maxWorkers: 1,
    setupFiles: ['test/support/mutant-coverage.ts'],
  },
});
