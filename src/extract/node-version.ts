import { canonicalJson, sha256 } from '../vocab/index.js';
import { asObject, type JsonObject } from './fields.js';

/**
 * A node version is a node's definition as the manifest states it, minus what changes without
 * the definition changing: the fields dbt stamps per invocation, per machine, or only once it
 * has compiled. Its id is the sha256 of the canonical JSON of what remains, so a node untouched
 * between runs hashes the same and costs nothing new in node_version.
 *
 * The hash covers the node as dbt wrote it, not our columns: any change dbt records (a config
 * default, a column description) makes a new version. A dbt upgrade that reshapes nodes (new
 * fields, raw_sql renamed raw_code in v7) therefore makes new versions of every node; so does a
 * new target, because database and schema are part of the definition.
 */

/** Top-level node fields left out of the hash, each with its reason. */
export const EXCLUDED_NODE_FIELDS: Readonly<Record<string, string>> = {
  created_at: 'the time of the parse that read the file: every parse stamps a new one',
  root_path: 'the absolute path of the project on the machine that ran dbt (gone in v8)',
  build_path: 'where this invocation wrote the SQL it ran; absent when it ran nothing',
  compiled_path: 'where this invocation wrote the compiled SQL; absent after `dbt parse`',
  deferred: 'set per invocation by --defer',
  compiled: 'whether this invocation compiled the node',
  compiled_code: 'what this invocation compiled (null after `dbt parse`): kept per invocation, in compiled_code',
  compiled_sql: 'compiled_code before v7',
  injected_sql: 'compiled code with ephemeral CTEs injected, before 0.19',
  extra_ctes: 'ephemeral CTEs found while compiling, which follow from raw code and refs',
  extra_ctes_injected: 'whether this invocation injected them',
  relation_name:
    'rendered from database, schema and alias (all hashed) when compiling; parse-only manifests ' +
    'up to v6 lack it, so it is kept per invocation, in node_invocation',
};

/**
 * depends_on.macros is left out too: running a node adds its materialization's macros
 * (dbt 1.0: a seed gains macro.dbt.materialization_seed_default after `dbt seed`), and the
 * macros it calls follow from its raw code and config, which are hashed. The edges of each
 * invocation are kept in node_depends_on.
 */
export const EXCLUDED_DEPENDS_ON_FIELDS: readonly string[] = ['macros'];

/** Macro fields left out of the hash. */
export const EXCLUDED_MACRO_FIELDS: Readonly<Record<string, string>> = {
  created_at: 'the time of the parse that read the file',
  root_path: 'the absolute path of the package on the machine that ran dbt (gone in v8)',
};

/** The node as it enters the hash. */
export function nodeDefinition(node: JsonObject): JsonObject {
  const definition = withoutKeys(node, EXCLUDED_NODE_FIELDS);
  const dependsOn = asObject(node.depends_on);
  if (dependsOn) {
    const kept = withoutKeys(dependsOn, Object.fromEntries(EXCLUDED_DEPENDS_ON_FIELDS.map((k) => [k, ''])));
    definition.depends_on = kept;
  }
  return definition;
}

/**
 * The id of a node version. A disabled entry hashes apart from an enabled one with the same
 * fields, so the flag stays true to the row it belongs to.
 */
export function nodeVersionId(node: JsonObject, disabled: boolean): string {
  const prefix = disabled ? 'disabled\n' : '';
  return sha256(prefix + canonicalJson(nodeDefinition(node)));
}

export function macroVersionId(macro: JsonObject): string {
  return sha256(canonicalJson(withoutKeys(macro, EXCLUDED_MACRO_FIELDS)));
}

function withoutKeys(object: JsonObject, excluded: Readonly<Record<string, string>>): JsonObject {
  const kept: JsonObject = {};
  for (const [key, value] of Object.entries(object)) {
    if (!Object.hasOwn(excluded, key)) kept[key] = value;
  }
  return kept;
}
