import { resolveConfig, type AtticConfig, type ConfigInput } from '../config/resolve.js';
import type { CliIo } from './io.js';

/** The flags every command shares, as commander hands them over (remote: push's and pull's other store). */
export type GlobalFlags = Pick<ConfigInput['flags'], 'store' | 'projectDir' | 'targetPath' | 'branch' | 'offline' | 'remote'>;

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
