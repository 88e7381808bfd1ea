import { resolveConfig, type AtticConfig, type ConfigInput } from '../config/resolve.js';
import type { CliIo } from './io.js';

/** The flags every command shares, as commander hands them over. */
export interface GlobalFlags {
  store?: string;
  projectDir?: string;
  targetPath?: string;
  branch?: string;
  offline?: boolean;
  /** push and pull: the other store. */
  remote?: string;
}

/** `own`: flags of one command that configuration also sets (export's --to and --project). */
export function loadConfig(io: CliIo, flags: GlobalFlags, own: Partial<ConfigInput['flags']> = {}): AtticConfig {
  return resolveConfig({
    flags: {
      store: flags.store,
      projectDir: flags.projectDir,
      targetPath: flags.targetPath,
      branch: flags.branch,
      offline: flags.offline,
      remote: flags.remote,
      ...own,
    },
    env: io.env,
    cwd: io.cwd,
  });
}
