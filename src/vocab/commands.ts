/**
 * dbt commands that write results without building anything from a node's SQL: a node's
 * "build" never comes from them (plan, state --per-node). `source freshness` writes
 * sources.json; its `which` is `source` or `freshness` depending on the dbt version.
 */
export const NON_BUILDING_COMMANDS = ['compile', 'generate', 'docs', 'show', 'clone', 'parse', 'list', 'ls', 'source', 'freshness', 'source freshness'] as const;

/** Result statuses of a successful build: `success` (models, seeds, snapshots), `pass` (tests). */
export const BUILD_SUCCESS_STATUSES = ['success', 'pass'] as const;

export function isBuildingCommand(command: string | null | undefined): boolean {
  return !(NON_BUILDING_COMMANDS as readonly string[]).includes(command ?? '');
}
