import { defineConfig } from 'vitest/config';

/**
 * The tests StrykerJS runs against each mutant (`npm run mutate`): the unit tests of the
 * mutated layers and the backend contract suite, which import src/ directly. End-to-end tests
 * run the built CLI from dist/, which Stryker does not mutate; the store's tests build DuckDB
 * stores in their set-up, seconds per mutant. Neither is needed to kill these layers' mutants.
 */
export default defineConfig({
  test: {
    include: ['test/unit/{archive,state,extract}/**/*.test.ts', 'test/contract/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    maxWorkers: 1,
  },
});
