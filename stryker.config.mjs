/**
 * Mutation testing (`npm run mutate`, not part of `npm test`: it runs tests once per mutant).
 * Each scope pairs the code it mutates with the unit tests written for it, so a mutant costs
 * seconds, not a whole suite. MUTATE_SCOPE picks scopes (comma-separated; default all), e.g.
 * `MUTATE_SCOPE=state npm run mutate`; MUTATE_CONCURRENCY sets the test processes (default 2).
 * The corpus is hidden from the tests (DBTATTIC_CORPUS in package.json): a mutant counts as
 * killed only by a test that runs on a fresh clone. Scores and survivors: README, "Mutation testing".
 */
// The archive by part, each against the unit and contract tests that reach it (a whole-archive run
// takes hours here). Together the parts mutate every file of src/archive.
const ARCHIVE_PARTS = {
  'archive-objects': {
    mutate: ['src/archive/objects.ts', 'src/archive/layout.ts'],
    tests: ['test/unit/archive/{objects,objects-damage,objects-repair,repair,format-vectors,layout}.test.ts'],
  },
  'archive-records': {
    mutate: ['src/archive/{records,journal,refs,branches,summary,plans,outputs,output-kind,sql-tree,change-stamp,forgotten,handouts}.ts'],
    tests: [
      'test/unit/archive/{records,records-damage,records-read,refs,branches,sql-tree,transfer,plans-damage,properties,verify,format-vectors,journal,outputs,forgotten}.test.ts',
      'test/unit/state/**/*.test.ts',
    ],
  },
  'archive-verify': {
    mutate: ['src/archive/{verify,transfer,open,archive-format,repair,prune-guard,index}.ts'],
    tests: [
      'test/unit/archive/{archive-format,verify,verify-records,transfer,transfer-merge,open,open-race,repair-lease,repair,records,records-damage,sql-tree,refs,prune-guard,prune-guard-renew}.test.ts',
    ],
  },
  'archive-backends': {
    mutate: ['src/archive/{backend,backends/fs,backends/mem}.ts'],
    tests: ['test/contract/**/*.test.ts', 'test/unit/archive/{refs,fs-backend,fs-backend-files,open-race}.test.ts'],
  },
  // Chunking apart: its tests push megabytes through the chunker, and a mutant there that loops
  // costs a timeout; the known-answer vectors are its sharpest test.
  chunking: { mutate: ['src/archive/chunking.ts'], tests: ['test/unit/archive/{chunking,chunking-bounds,format-vectors}.test.ts'] },
  // Its contract tests run only against a real S3 server (DBTATTIC_S3_* set, README "S3 tests").
  'archive-s3': { mutate: ['src/archive/backends/s3/**/*.ts'], tests: ['test/contract/**/*.test.ts', 'test/unit/archive/s3-*.test.ts'] },
};

const SCOPES = {
  ...ARCHIVE_PARTS,
  archive: {
    mutate: Object.values(ARCHIVE_PARTS).flatMap((p) => p.mutate),
    tests: Object.values(ARCHIVE_PARTS).flatMap((p) => p.tests),
  },
  state: { mutate: ['src/state/**/*.ts'], tests: ['test/unit/state/**/*.test.ts'] },
  fingerprint: {
    mutate: ['src/extract/node-fingerprint.ts', 'src/extract/fingerprint-context.ts'],
    tests: ['test/unit/extract/node-fingerprint.test.ts', 'test/unit/extract/manifest.test.ts'],
  },
  status: {
    mutate: ['src/extract/status.ts'],
    tests: ['test/unit/extract/status.test.ts', 'test/unit/extract/run-results.test.ts', 'test/unit/state/judged-run.test.ts'],
  },
  detect: { mutate: ['src/extract/detect.ts'], tests: ['test/unit/extract/detect.test.ts', 'test/unit/extract/run-results.test.ts'] },
};

// By default every scope once: the archive's parts, not also their union.
const everyScope = Object.keys(SCOPES).filter((name) => name !== 'archive');
const scopeNames = (process.env.MUTATE_SCOPE ?? everyScope.join(',')).split(',').map((name) => name.trim());
const chosen = scopeNames.map((name) => {
  const scope = SCOPES[name];
  if (!scope) throw new Error(`MUTATE_SCOPE: no scope '${name}' (scopes: ${Object.keys(SCOPES).join(', ')})`);
  return scope;
});
// Read by vitest.mutate.config.ts in the test processes Stryker starts.
// A JSON list: globs hold commas ({a,b}), so a comma-joined list would split them.
process.env.DBTATTIC_MUTATE_TESTS = JSON.stringify([...new Set(chosen.flatMap((s) => s.tests))]);

export default {
  testRunner: 'vitest',
  vitest: { configFile: 'vitest.mutate.config.ts', related: false },
  coverageAnalysis: 'perTest',
  mutate: chosen.flatMap((s) => s.mutate),
  ignorePatterns: ['dist', 'bench', 'reports', '.dbtattic'],
  concurrency: Number(process.env.MUTATE_CONCURRENCY ?? 2),
  timeoutMS: 10_000,
  // event-recorder: each mutant's result as it comes (reports/mutation/events-<scope>/), for a long run.
  reporters: ['clear-text', 'progress-append-only', 'json', 'event-recorder'],
  eventReporter: { baseDir: `reports/mutation/events-${scopeNames.join('+')}` },
  jsonReporter: { fileName: 'reports/mutation/mutation.json' },
  thresholds: { high: 80, low: 70, break: null },
  tempDirName: '.stryker-tmp',
  // A rerun tests again only the mutants whose code or covering tests changed (one file per scope).
  incremental: true,
  incrementalFile: `reports/stryker-incremental-${scopeNames.join('+')}.json`,
  cleanTempDir: 'always',
};
