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

export function commandName(args: JsonObject): string | null {
  const which = str(args.which);
  const raw = which === 'rpc' || which === null ? (str(args.rpc_method) ?? which ?? str(args.command)) : which;
  return raw === null ? null : typedCommandName(raw);
}

/** A command name in any spelling dbt or a user wrote it → the one dbtattic stores. */
export function typedCommandName(name: string): string {
  const key = name.trim().toLowerCase();
  return TYPED_NAMES[key] ?? key;
}
