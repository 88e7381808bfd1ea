import { str, type JsonObject } from './fields.js';

/**
 * The dbt command an invocation ran, named as dbt's users type it: `docs generate`, not
 * `generate`; `source freshness`, whatever the version called it; through dbt-rpc, the method
 * it ran (`docs.generate`), not `rpc`. One naming for history, state and the views.
 */
const TYPED_NAMES: Record<string, string> = {
  generate: 'docs generate',
  'docs.generate': 'docs generate',
  serve: 'docs serve',
  'docs.serve': 'docs serve',
  freshness: 'source freshness',
  'snapshot-freshness': 'source freshness',
  'source-freshness': 'source freshness',
  'source.freshness': 'source freshness',
  'source snapshot-freshness': 'source freshness',
  run_operation: 'run-operation',
};

/**
 * `which` alone can mislead: through dbt-rpc it is always `rpc`, and a docs generate run by a
 * job server has been seen to say `run` (with `rpc_method: docs.generate`, `compile: true`, a
 * catalog beside it). The method, then the docs generate flag, then `which`.
 */
export function commandName(args: JsonObject): string | null {
  const raw = str(args.rpc_method) ?? docsGenerateFlag(args) ?? str(args.which) ?? str(args.command);
  return raw === null ? null : typedCommandName(raw);
}

/**
 * `compile` is a parameter of docs generate alone (`--no-compile`); dbt-rpc merges the method's
 * parameters into args, so an rpc invocation with `compile: true` was a `docs.generate`.
 */
function docsGenerateFlag(args: JsonObject): string | null {
  return typeof args.compile === 'boolean' ? 'docs generate' : null;
}

/** A command name in any spelling dbt or a user wrote it → the one dbtattic stores. */
export function typedCommandName(name: string): string {
  const key = name.trim().toLowerCase();
  return TYPED_NAMES[key] ?? key;
}
