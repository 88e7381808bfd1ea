import type { Backend } from './backend.js';

/**
 * The format of each archive opened (its FORMAT file, which open.ts reads), kept here and not on
 * the Backend: a backend is storage, which holds whatever bytes it is given, and the format is
 * the archive's (restic keeps it on the repository, not the backend). objects.ts asks it which
 * chunking and compression new artifacts get.
 */
export type ArchiveFormatVersion = 1 | 2;

const opened = new WeakMap<Backend, ArchiveFormatVersion>();
const standIns = new WeakMap<Backend, Backend>();

export function recordArchiveFormat(backend: Backend, format: ArchiveFormatVersion): void {
  opened.set(backend, format);
}

/** A backend that stands in for another (prune-guard.ts's GuardedBackend) is in that one's format, whenever it is read. */
export function followArchiveFormat(standIn: Backend, backend: Backend): void {
  standIns.set(standIn, backend);
}

/** The format the archive on `backend` was opened in; undefined when it was not opened as an archive: the current one is meant. */
export function archiveFormatOn(backend: Backend): ArchiveFormatVersion | undefined {
  const inner = standIns.get(backend);
  return inner ? archiveFormatOn(inner) : opened.get(backend);
}
