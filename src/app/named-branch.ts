import { openArchive } from '../archive/index.js';
import type { AtticConfig } from '../config/resolve.js';
import { refuseUnknownBranch } from '../state/index.js';

/**
 * A `--branch` naming no branch that has ever existed: refused as a typo (exit 2, naming the
 * branches there are; state/known-branch.ts), where the command would otherwise answer for an
 * empty line of history without a word. A branch that exists but holds nothing the other
 * filters want is left to the command's own "nothing matched".
 */
export async function refuseMistypedBranch(config: AtticConfig, branch: string | undefined): Promise<void> {
  if (!branch) return;
  const backend = await openArchive(config.archiveLocation, { create: false, remote: config.remote }).catch(() => null);
  if (backend) await refuseUnknownBranch(backend, branch);
}
