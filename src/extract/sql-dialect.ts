/**
 * The lexical rules of the warehouse a manifest was built for, as far as they decide what is a
 * comment, a string or an identifier. Named after `metadata.adapter_type` of the manifest.
 */

export const ADAPTER_TYPES = ['postgres', 'snowflake', 'bigquery', 'duckdb', 'databricks', 'spark', 'redshift', 'sqlserver', 'unknown'] as const;
export type AdapterType = (typeof ADAPTER_TYPES)[number];

export interface SqlDialect {
  readonly adapter: AdapterType;
  /** `// …` ends at the line end (snowflake); elsewhere `//` is an operator (duckdb) or nothing. */
  readonly slashComments: boolean;
  /** `# …` ends at the line end (bigquery, mysql). */
  readonly hashComments: boolean;
  /** `\'` escapes a quote inside '…' and "…" (snowflake, bigquery, spark). `E'…'` always allows it. */
  readonly backslashEscapes: boolean;
  /** `$$…$$` only (snowflake), `$tag$…$tag$` too (postgres family), or no dollar quoting. */
  readonly dollarQuotes: 'none' | 'plain' | 'tagged';
  /** Block comments nest, as in `/* a /* b *\/ c *\/` (postgres and engines on its parser, spark 3, T-SQL). */
  readonly nestedComments: boolean;
  /** `'''…'''` and `"""…"""` (bigquery). */
  readonly tripleQuotes: boolean;
  /** `[name]` quotes an identifier (T-SQL); elsewhere `[` is a subscript. */
  readonly bracketIdentifiers: boolean;
  /** `/*+ … *\/` is an optimizer hint that changes the plan (spark), so it is kept. */
  readonly optimizerHints: boolean;
  /** `col:Path.Elem` reads semi-structured data by case-sensitive element names (snowflake). */
  readonly caseSensitivePaths: boolean;
}

const ANSI: Omit<SqlDialect, 'adapter'> = {
  slashComments: false,
  hashComments: false,
  backslashEscapes: false,
  dollarQuotes: 'none',
  nestedComments: false,
  tripleQuotes: false,
  bracketIdentifiers: false,
  optimizerHints: false,
  caseSensitivePaths: false,
};

const DIALECTS: Record<AdapterType, SqlDialect> = {
  postgres: { ...ANSI, adapter: 'postgres', dollarQuotes: 'tagged', nestedComments: true },
  // Redshift forked from postgres 8: dollar quoting yes; nested comments not documented, so no.
  redshift: { ...ANSI, adapter: 'redshift', dollarQuotes: 'tagged' },
  // DuckDB's parser is postgres's (libpg_query): same quoting and comments, `//` is division.
  duckdb: { ...ANSI, adapter: 'duckdb', dollarQuotes: 'tagged', nestedComments: true },
  snowflake: {
    ...ANSI,
    adapter: 'snowflake',
    slashComments: true,
    backslashEscapes: true,
    dollarQuotes: 'plain',
    caseSensitivePaths: true,
  },
  bigquery: { ...ANSI, adapter: 'bigquery', hashComments: true, backslashEscapes: true, tripleQuotes: true },
  spark: { ...ANSI, adapter: 'spark', backslashEscapes: true, nestedComments: true, optimizerHints: true },
  databricks: { ...ANSI, adapter: 'databricks', backslashEscapes: true, nestedComments: true, optimizerHints: true },
  sqlserver: { ...ANSI, adapter: 'sqlserver', nestedComments: true, bracketIdentifiers: true },
  unknown: { ...ANSI, adapter: 'unknown' },
};

/** Adapters that speak one of the dialects above under another name. */
const ALIASES: Readonly<Record<string, AdapterType>> = {
  fabric: 'sqlserver',
  synapse: 'sqlserver',
  materialize: 'postgres',
  motherduck: 'duckdb',
};

/** The dialect for a manifest's `metadata.adapter_type`; anything unrecognised gets plain ANSI rules. */
export function dialectFor(adapterType: string | null | undefined): SqlDialect {
  const name = typeof adapterType === 'string' ? adapterType.toLowerCase() : 'unknown';
  if (isAdapterType(name)) return DIALECTS[name];
  return DIALECTS[ALIASES[name] ?? 'unknown'];
}

export function isAdapterType(value: string): value is AdapterType {
  return (ADAPTER_TYPES as readonly string[]).includes(value);
}
