import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Two cores on CI: DuckDB and child-process tests fight for them.
    maxWorkers: 2,
  },
});
