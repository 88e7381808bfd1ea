/**
 * dbt commands that write results without building anything from a node's SQL: a node's
 * "build" never comes from them (plan, state --per-node). Named as the store names them
 * (extract's command-name.ts: `docs generate`, `source freshness`); the raw `which` words of
 * older dbt are listed too. schema/002-macros.sql's `command_builds` is the same rule in SQL.
 */
export const NON_BUILDING_COMMANDS = [
  'compile',
  'docs generate',
  'docs serve',
  'show',
  'clone',
  'parse',
  'list',
  'ls',
  'source freshness',
  'generate',
  'docs',
  'source',
  'freshness',
] as const;

/** Result statuses of a successful build: `success` (models, seeds, snapshots), `pass` (tests). */
export const BUILD_SUCCESS_STATUSES = ['success', 'pass'] as const;

export function isBuildingCommand(command: string | null | undefined): boolean {
  return !(NON_BUILDING_COMMANDS as readonly string[]).includes(command ?? '');
}
