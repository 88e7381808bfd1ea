import type { ArtifactRecord, CaptureRecord } from '../../archive/index.js';
import { applyArtifactGitEnv, readArtifactGitEnv, type InvocationFacts } from '../../extract/index.js';

/** What the capture records say of an invocation, beside what its artifacts say. */
export interface CaptureFacts {
  capture_phases: string;
  branch: string | null;
  run_id: string | null;
  context_taken: string | null;
  git: { sha: string | null; branch: string | null; branchSource: string | null; dirty: boolean | null; diffHash: string | null; remoteUrl: string | null };
  catalog: { provider: string | null; status: string | null; snapshotId: string | null; atomic: boolean | null; detail: string | null };
  run: { commandLine: string; exitCode: number; dbtCommand: string | null } | null;
  /** The target dbt resolved (command line, DBT_TARGET, profiles.yml), where the artifacts do not say. */
  target: { name: string; source: string } | null;
}

const NO_GIT = { sha: null, branch: null, branchSource: null, dirty: null, diffHash: null, remoteUrl: null };

/**
 * The context that best describes the run: the one `dbtattic run` took as dbt started, else
 * the earliest capture of the invocation's artifacts (closest in time to when dbt ran).
 * Git values dbt stamped into the artifacts' metadata.env win over both.
 */
export function captureFacts(
  invocationId: string,
  records: readonly ArtifactRecord[],
  captures: readonly CaptureRecord[],
  facts: InvocationFacts | null,
): CaptureFacts {
  const ordered = [...captures].sort((a, b) => a.capture_id.localeCompare(b.capture_id));
  const filing = ordered.filter((c) => c.artifacts.some((a) => a.invocation_id === invocationId && a.status === 'captured'));
  const runCapture = filing.find((c) => c.run !== null);
  const chosen = runCapture ?? filing[0] ?? ordered[0];
  const context = (chosen?.context ?? {}) as { taken?: string; git?: Partial<CaptureFacts['git']>; catalog?: Record<string, unknown> | null; target?: unknown };
  const git = applyArtifactGitEnv({ ...NO_GIT, ...context.git }, readArtifactGitEnv(parseJson(facts?.env ?? null)));
  return {
    capture_phases: JSON.stringify([...new Set(records.map((r) => r.phase))].sort()),
    branch: chosen?.branch ?? null,
    run_id: filing[0]?.capture_id ?? ordered[0]?.capture_id ?? null,
    context_taken: context.taken ?? null,
    git,
    catalog: catalogFacts(context.catalog ?? null),
    target: targetFacts(context.target),
    run: runCapture?.run
      ? { commandLine: runCapture.run.argv.map(quoteArg).join(' '), exitCode: runCapture.run.exit_code, dbtCommand: dbtCommandOf(runCapture.run.argv) }
      : null,
  };
}

function targetFacts(target: unknown): CaptureFacts['target'] {
  const { name, source } = (target && typeof target === 'object' ? target : {}) as Record<string, unknown>;
  return typeof name === 'string' && typeof source === 'string' ? { name, source } : null;
}

function catalogFacts(catalog: Record<string, unknown> | null): CaptureFacts['catalog'] {
  if (!catalog) return { provider: null, status: null, snapshotId: null, atomic: null, detail: null };
  const { provider, status, snapshotId, atomic, ...rest } = catalog;
  return {
    provider: typeof provider === 'string' ? provider : null,
    status: typeof status === 'string' ? status : null,
    snapshotId: typeof snapshotId === 'string' ? snapshotId : null,
    atomic: typeof atomic === 'boolean' ? atomic : null,
    detail: Object.keys(rest).length > 0 ? JSON.stringify(rest) : null,
  };
}

function parseJson(text: string | null): unknown {
  if (!text) return null;
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

/** Shell-style quoting, so the recorded command line can be pasted back into a shell. */
function quoteArg(arg: string): string {
  return /^[\w@%+=:,./-]+$/.test(arg) ? arg : `'${arg.replace(/'/g, "'\\''")}'`;
}

const DBT_COMMANDS = new Set([
  'build',
  'run',
  'test',
  'seed',
  'snapshot',
  'compile',
  'parse',
  'ls',
  'list',
  'docs',
  'source',
  'run-operation',
  'clone',
  'retry',
  'show',
  'debug',
  'deps',
  'clean',
  'init',
]);

/**
 * The dbt subcommand of a wrapped command line (`dbt --log-format json build -s x` → build), for
 * the invocations whose artifacts do not say it (a `dbt parse` writes no run_results).
 */
export function dbtCommandOf(argv: readonly string[]): string | null {
  const start = argv.findIndex((arg) => /(^|\/)dbt(\.exe)?$/.test(arg));
  if (start === -1) return null;
  const rest = argv.slice(start + 1);
  const at = rest.findIndex((arg) => DBT_COMMANDS.has(arg));
  if (at === -1) return null;
  const word = rest[at]!;
  return word === 'docs' || word === 'source' ? `${word} ${rest[at + 1] ?? ''}`.trim() : word;
}
