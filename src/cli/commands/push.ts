import { transferCommand } from '../transfer-command.js';

/** Copies what the other store lacks to it; branch heads merge, a diverged one is reported. */
export default transferCommand('push');
