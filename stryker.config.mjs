/**
 * Mutation testing (`npm run mutate`, not part of `npm test`: it runs the unit tests once per
 * mutant). MUTATE narrows a run to some files (comma-separated globs), e.g.
 * `MUTATE='src/state/**\/*.ts' npm run mutate`; MUTATE_CONCURRENCY sets the test processes (2).
 * The corpus is hidden from the tests (DBTATTIC_CORPUS in package.json): a mutant counts as
 * killed only by a test that runs on a fresh clone. Scores and survivors: README, "Mutation testing".
 */
const scopes = {
  archive: ['src/archive/**/*.ts'],
  state: ['src/state/**/*.ts'],
  fingerprint: ['src/extract/node-fingerprint.ts', 'src/extract/fingerprint-context.ts'],
  status: ['src/extract/status.ts'],
  detect: ['src/extract/detect.ts'],
};

export default {
  testRunner: 'vitest',
  vitest: { configFile: 'vitest.mutate.config.ts', related: true },
  coverageAnalysis: 'perTest',
  mutate: process.env.MUTATE ? process.env.MUTATE.split(',') : Object.values(scopes).flat(),
  ignorePatterns: ['dist', 'bench', 'reports', '.dbtattic'],
  concurrency: Number(process.env.MUTATE_CONCURRENCY ?? 2),
  timeoutMS: 30_000,
  reporters: ['clear-text', 'progress-append-only', 'json'],
  jsonReporter: { fileName: 'reports/mutation/mutation.json' },
  thresholds: { high: 80, low: 70, break: null },
  tempDirName: '.stryker-tmp',
  cleanTempDir: 'always',
};
