import type { ATTIC_CONFIG_FILE } from './dbt-project.js';

// Apart from resolve.ts, which exports them too: remote.ts resolves values, and resolve.ts imports remote.ts.

/** Where a resolved value came from, so `info` can explain it. */
export type Source = 'flag' | `env:${string}` | typeof ATTIC_CONFIG_FILE | 'dbt_project.yml' | 'default' | 'cwd';

export interface Resolved<T> {
  value: T;
  source: Source;
}
