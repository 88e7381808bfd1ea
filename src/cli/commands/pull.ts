import { transferCommand } from '../transfer-command.js';

/** Copies what this store lacks from the other; branch heads merge, a diverged one is reported. */
export default transferCommand('pull');
