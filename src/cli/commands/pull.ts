import type { CliIo } from '../io.js';
import { runTransfer, type TransferFlags } from '../transfer-command.js';

/** Copies what this store lacks from the other; branch heads merge, a diverged one is reported. */
export default function pull(io: CliIo, flags: TransferFlags): Promise<number> {
  return runTransfer(io, flags, 'pull');
}
