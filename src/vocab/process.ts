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
