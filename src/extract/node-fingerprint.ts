import { canonicalJson, sha256 } from '../vocab/hash.js';
import { isRecord, pickBuildConfig, pickRelation, type ConfiguredNode } from './build-config.js';
import { readCodeConfigKeys } from './code-config.js';
import { withoutAbsent } from './compared-config.js';
import { collectMacroClosure, type FingerprintContext } from './fingerprint-context.js';
import { normalizeSql } from './sql-tokens.js';
import { FINGERPRINT_VERSION } from './rule-versions.js';

/**
 * A node's semantic fingerprint: a hash of what changes the data it builds. Raw code that
 * changed while the fingerprint did not is a cosmetic change (comments, whitespace, keyword
 * case); a changed fingerprint is a semantic one.
 */

/** Bumped whenever the recipe changes, since every fingerprint changes with it (rule-versions.ts). */
export { FINGERPRINT_VERSION };

/** The node fields read, under the names of manifest v1–v12 and Fusion's v20; all optional. */
export interface FingerprintInput extends ConfiguredNode {
  resource_type?: string | null;
  /** `raw_code` since manifest v7 (dbt 1.3); `raw_sql` before. */
  raw_code?: string | null;
  raw_sql?: string | null;
  language?: string | null;
  depends_on?: { macros?: readonly string[] | null } | null;
  checksum?: { name?: string | null; checksum?: string | null } | null;
  contract?: { enforced?: boolean | null; alias_types?: boolean | null } | null;
  columns?: Readonly<Record<string, { name?: string | null; data_type?: string | null; constraints?: unknown }>> | null;
  constraints?: unknown;
  test_metadata?: { name?: string | null; namespace?: string | null; kwargs?: unknown } | null;
  /** A unit test's (dbt 1.8+, `unit_tests` in the manifest): the model it tests and its cases. */
  model?: string | null;
  version?: unknown;
  versions?: unknown;
  given?: unknown;
  expect?: unknown;
  overrides?: unknown;
}

/** What goes into the hash, kept apart so a caller can tell which part of a node changed. */
export interface FingerprintParts {
  version: number;
  /** Normal form hash of SQL or Python, or the seed file's checksum. */
  code: { kind: 'sql' | 'python' | 'seed' | 'unit_test'; hash: string | null; note?: string };
  macros: [string, string | null][];
  config: Record<string, unknown>;
  relation: Record<string, unknown>;
  contract: unknown;
  test: unknown;
}

export function fingerprintNode(node: FingerprintInput, context: FingerprintContext): string {
  return sha256(canonicalJson(describeFingerprint(node, context)));
}

export function describeFingerprint(node: FingerprintInput, context: FingerprintContext): FingerprintParts {
  if (node.resource_type === 'unit_test') return describeUnitTest(node);
  const code = codeOf(node);
  const setInCode = readCodeConfigKeys(code);
  // A hook (an operation) is its SQL: it builds no relation, and the config and schema a
  // manifest gives it are the engine's bookkeeping (dbt 1.x: a view in the target schema;
  // dbt Fusion: none, in `public`).
  const hook = node.resource_type === 'operation';
  return {
    version: FINGERPRINT_VERSION,
    code: fingerprintCode(node, code, context),
    macros: collectMacroClosure(calledMacros(node, code), context),
    config: hook ? {} : pickBuildConfig(node, context.dialect, setInCode),
    relation: hook ? {} : pickRelation(node, context.dialect, setInCode),
    contract: enforcedContract(node),
    test: genericTest(node),
  };
}

/**
 * A unit test has no code: what it checks is the model it tests (and which of its versions), the
 * rows given for each input, the rows expected, and the macros, vars and env vars it overrides,
 * the parts dbt's own unit test checksum covers. Given inputs are a set (sorted by input); the
 * empty fields of a given (`fixture: null`) are none.
 */
function describeUnitTest(node: FingerprintInput): FingerprintParts {
  const given = Array.isArray(node.given) ? node.given.map((input: unknown) => withoutAbsent(input) ?? {}) : [];
  given.sort((a, b) => compareText(canonicalJson(a), canonicalJson(b)));
  return {
    version: FINGERPRINT_VERSION,
    code: { kind: 'unit_test', hash: null },
    macros: [],
    config: {},
    relation: {},
    contract: null,
    test: {
      model: node.model ?? null,
      versions: withoutAbsent(node.versions ?? node.version) ?? null,
      given,
      expect: withoutAbsent(node.expect) ?? null,
      overrides: withoutAbsent(node.overrides) ?? null,
    },
  };
}

/** One hash over every (unique_id, fingerprint) pair of a project, whatever their order. */
export function fingerprintProject(nodeFingerprints: Iterable<readonly [string, string]>): string {
  const pairs = [...nodeFingerprints].map(([id, fingerprint]): [string, string] => [id, fingerprint]);
  pairs.sort(([idA, fpA], [idB, fpB]) => compareText(idA, idB) || compareText(fpA, fpB));
  return sha256(canonicalJson(pairs));
}

function codeOf(node: FingerprintInput): string {
  if (typeof node.raw_code === 'string') return node.raw_code;
  return typeof node.raw_sql === 'string' ? node.raw_sql : '';
}

function fingerprintCode(node: FingerprintInput, code: string, context: FingerprintContext): FingerprintParts['code'] {
  if (node.resource_type === 'seed') return seedChecksum(node);
  if (node.language === 'python') return { kind: 'python', hash: sha256(normalizePython(code)) };
  return { kind: 'sql', hash: sha256(normalizeSql(code, context.dialect)) };
}

/**
 * A seed is its file. dbt stores the sha256 of files up to 1 MiB; for larger ones it stores the
 * path instead (`checksum.name` "path"), so such a seed counts as changed only when that path does.
 */
function seedChecksum(node: FingerprintInput): FingerprintParts['code'] {
  const name = typeof node.checksum?.name === 'string' ? node.checksum.name.toLowerCase() : '';
  const value = typeof node.checksum?.checksum === 'string' ? node.checksum.checksum : null;
  if (name === 'path') return { kind: 'seed', hash: value, note: 'file over 1 MiB: dbt stored its path, not its hash' };
  return { kind: 'seed', hash: value };
}

/** Python's whitespace is syntax: only trailing blanks and line endings are let go. */
export function normalizePython(code: string): string {
  return code
    .replace(/\r\n?/g, '\n')
    .replace(/[ \t\f\v]+$/gm, '')
    .replace(/\n+$/, '');
}

/**
 * An enforced contract makes the build check column names, types and constraints, so those
 * count; when it is not enforced they are documentation. Columns are compared, not dbt's
 * `contract.checksum`, whose recipe differs across dbt versions.
 */
function enforcedContract(node: FingerprintInput): unknown {
  const configured = isRecord(node.config) ? node.config.contract : undefined;
  const enforced = node.contract?.enforced === true || (isRecord(configured) && configured.enforced === true);
  if (!enforced) return null;
  const columns = Object.values(isRecord(node.columns) ? node.columns : {}).filter(isRecord);
  return {
    alias_types: node.contract?.alias_types !== false,
    columns: columns
      .map((column) => [column.name ?? null, column.data_type ?? null, builtConstraints(column.constraints)])
      .sort((a, b) => compareText(String(a[0]), String(b[0]))),
    constraints: builtConstraints(node.constraints),
  };
}

/**
 * What a constraint makes the build do: its type, columns, expression, references. Whether dbt
 * warns about one the warehouse does not enforce (`warn_unenforced`, `warn_unsupported`) builds
 * nothing, and the empty fields newer dbt versions add (`name: null`, `to_columns: []`) are none.
 */
function builtConstraints(constraints: unknown): unknown[] {
  if (!Array.isArray(constraints)) return [];
  return constraints.map((constraint: unknown) => {
    if (!isRecord(constraint)) return constraint;
    const { warn_unenforced: _warnUnenforced, warn_unsupported: _warnUnsupported, ...built } = constraint;
    return withoutAbsent(built) ?? {};
  });
}

/** A generic test's code is one macro call; what it tests is in `test_metadata`. */
/**
 * The macros the node's own code calls: dbt also lists in depends_on.macros what running the
 * node rendered (materialization helpers such as `statement`, `should_store_failures`), which
 * appear after a run and vanish after a parse. Counting those would make every executed node
 * look changed; the macros named in the code, and a generic test's own macro, are what it builds.
 */
function calledMacros(node: FingerprintInput, code: string): string[] {
  const listed = (node.depends_on?.macros ?? []).filter((id): id is string => typeof id === 'string');
  const testMacro = typeof node.test_metadata?.name === 'string' ? `test_${node.test_metadata.name}` : null;
  return listed.filter((id) => {
    const name = id.slice(id.lastIndexOf('.') + 1);
    // `name(` or `package.name(`: a call, not a mention in a comment or a longer identifier.
    return name === testMacro || new RegExp(`(^|\\W)${escapeRegExp(name)}\\s*\\(`).test(code);
  });
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

function genericTest(node: FingerprintInput): unknown {
  const meta = node.test_metadata;
  if (!isRecord(meta)) return null;
  return { name: meta.name ?? null, namespace: meta.namespace ?? null, kwargs: meta.kwargs ?? null };
}

function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
