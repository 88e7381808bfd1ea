import { listBranches, listCaptureRecords, readBranch, type Backend } from '../archive/index.js';
import { AtticError } from '../errors.js';

/**
 * A branch named that has never existed is a typo far more often than a line of history: said
 * as bad usage (exit 2), naming the branches there are, never as "nothing matched" (exit 3),
 * which README's slim-CI recipe reads as "build everything", so slim CI would be off unseen.
 * A branch exists once it has a ref (a capture on it, `branch create`) or a capture filed on it.
 * Called only once nothing matched: a branch that exists costs nothing more.
 */
export async function refuseUnknownBranch(backend: Backend, name: string): Promise<void> {
  if (await readBranch(backend, name)) return;
  const filedOn = new Set((await listCaptureRecords(backend)).map((c) => c.branch).filter((b): b is string => b !== null));
  if (filedOn.has(name)) return;
  const known = [...new Set([...(await listBranches(backend)).map((b) => b.name), ...filedOn])].sort();
  throw new AtticError(
    'usage',
    `No branch '${name}' in the archive${known.length ? ` (branches: ${known.join(', ')})` : ''}. Check the name with dbtattic branch list.`,
  );
}
