/**
 * Every failure a user can act on is an AtticError with a stable `code` and the process exit
 * status it maps to. The CLI turns them into output in exactly one place (cli/main.ts).
 */

/** Exit statuses, documented in docs/commands.md ("Exit status"). */
export const ExitCode = {
  ok: 0,
  /** Some artifacts could not be captured (the others were). */
  partial: 1,
  /** Bad usage or configuration. */
  usage: 2,
  /** Nothing matched (no successful invocation, unknown id). */
  notFound: 3,
  /** The archive is damaged or unreadable. */
  damaged: 4,
  /** The store is in use by another process: try again when it finishes. */
  busy: 5,
  /** Remote storage cannot be reached, refuses access, or has no such bucket. */
  remote: 6,
  /** The disk is full or read-only: nothing is wrong with dbtattic's data, the machine must change. */
  io: 7,
  /** An unexpected internal error: a bug. */
  internal: 70,
} as const;
export type ExitCode = (typeof ExitCode)[keyof typeof ExitCode];

export type ErrorCode =
  | 'usage'
  | 'config'
  | 'project-not-found'
  | 'target-not-found'
  | 'artifact-unreadable'
  | 'unknown-schema-version'
  | 'not-found'
  | 'ambiguous-id'
  | 'archive-damaged'
  | 'archive-format'
  | 'store-busy'
  | 'store-schema'
  | 'no-space'
  | 'read-only'
  | 'query-refused'
  | 'query-timeout'
  | 'catalog'
  | 'ref-conflict'
  | 'remote'
  | 'diverged';

const exitByCode: Record<ErrorCode, ExitCode> = {
  usage: ExitCode.usage,
  config: ExitCode.usage,
  'project-not-found': ExitCode.usage,
  'target-not-found': ExitCode.notFound,
  'artifact-unreadable': ExitCode.partial,
  'unknown-schema-version': ExitCode.partial,
  'not-found': ExitCode.notFound,
  'ambiguous-id': ExitCode.usage,
  'archive-damaged': ExitCode.damaged,
  'archive-format': ExitCode.damaged,
  'store-busy': ExitCode.busy,
  'store-schema': ExitCode.damaged,
  'no-space': ExitCode.io,
  'read-only': ExitCode.io,
  'query-refused': ExitCode.usage,
  'query-timeout': ExitCode.partial,
  catalog: ExitCode.partial,
  'ref-conflict': ExitCode.partial,
  remote: ExitCode.remote,
  diverged: ExitCode.partial,
};

export class AtticError extends Error {
  readonly code: ErrorCode;
  readonly exitCode: ExitCode;
  /** Extra facts for --json output (candidates of an ambiguous id, a path, ...). */
  readonly details: Record<string, unknown>;

  constructor(code: ErrorCode, message: string, details: Record<string, unknown> = {}) {
    super(message);
    this.name = 'AtticError';
    this.code = code;
    this.exitCode = exitByCode[code];
    this.details = details;
  }
}

export function isAtticError(error: unknown): error is AtticError {
  return error instanceof AtticError;
}

const NO_SPACE = ['ENOSPC', 'EDQUOT'];
const NOT_WRITABLE = ['EROFS', 'EACCES', 'EPERM'];

/**
 * A full or read-only disk is the machine's state, not a bug: an error that names `place` (the
 * archive …, the state directory …) and what to do, where to write instead being `elsewhere`.
 * Any other error is returned as it is.
 */
export function asDiskError(error: unknown, place: string, file: string, elsewhere = 'point --store at a writable directory'): unknown {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code !== 'string') return error;
  if (NO_SPACE.includes(code))
    return new AtticError('no-space', `No space left on the disk of ${place}. Free space there and run the command again; what was written before is kept.`, {
      path: file,
    });
  if (NOT_WRITABLE.includes(code))
    return new AtticError(
      'read-only',
      `${place[0]!.toUpperCase()}${place.slice(1)} cannot be written (${code}). Give dbtattic write access to it, or ${elsewhere}.`,
      { path: file },
    );
  return error;
}
