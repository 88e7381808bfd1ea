import { hostname } from 'node:os';

/**
 * Whether no process has this pid on this machine: the question every holder of a lock, lease
 * or half-built file is judged by. Only ESRCH says so: EPERM is a live process of another user,
 * and a pid that cannot be one says nothing.
 */
export function processIsGone(pid: number): boolean {
  if (!Number.isSafeInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return false;
  } catch (error) {
    return (error as { code?: string }).code === 'ESRCH';
  }
}

/** The same, for a process named with its machine (a lock's owner, a file's name): another machine's is never known gone. */
export function processIsGoneOn(host: string | undefined, pid: string | number | undefined): boolean {
  return host === hostname() && processIsGone(Number(pid));
}
