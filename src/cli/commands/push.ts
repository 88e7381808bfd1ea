import type { CliIo } from '../io.js';
import { runTransfer, type TransferFlags } from '../transfer-command.js';

/** Copies what the other store lacks to it; branch heads merge, a diverged one is reported. */
export default function push(io: CliIo, flags: TransferFlags): Promise<number> {
  return runTransfer(io, flags, 'push');
}
