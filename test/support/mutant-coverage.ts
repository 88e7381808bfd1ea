import { afterAll, inject } from 'vitest';

/**
 * Hands Stryker what its vitest runner (9.5) fails to collect on Vitest 4.1, whose hooks take
 * fixtures first and the suite second (Stryker's setup reads `meta` from the first): the mutants
 * each test reached (dry run), so a mutant runs only the tests that reach it, not every test of
 * its scope; and the hit count (mutant runs), so a mutant that loops is stopped by its hit limit.
 * Without Stryker it does nothing. Upstream: stryker-mutator/stryker-js#5928.
 */
interface StrykerGlobal {
  mutantCoverage?: unknown;
  hitCount?: number;
}

const mode = inject('mode' as never) as string | undefined;
const namespace = inject('globalNamespace' as never) as string | undefined;
const stryker = (): StrykerGlobal => ((globalThis as Record<string, unknown>)[namespace ?? '__stryker__'] ?? {}) as StrykerGlobal;

// Vitest 4.1 parses a hook's first parameter as its fixtures: it must be a destructuring pattern.
if (mode === 'dry-run') {
  // biome-ignore lint/correctness/noEmptyPattern: vitest hands the suite only as the second argument
  afterAll(({}, suite) => {
    (suite.meta as Record<string, unknown>).mutantCoverage = stryker().mutantCoverage;
  });
} else if (mode === 'mutant') {
  // biome-ignore lint/correctness/noEmptyPattern: vitest hands the suite only as the second argument
  afterAll(({}, suite) => {
    (suite.meta as Record<string, unknown>).hitCount = stryker().hitCount;
  });
}
