import { existsSync } from 'node:fs';
import path from 'node:path';
import { MemBackend } from '../archive/backends/mem.js';
import { openArchive, type RunInfo } from '../archive/index.js';
import type { AtticConfig } from '../config/resolve.js';
import { AtticError } from '../errors.js';
import type { CapturePhase } from '../vocab/index.js';
import { captureTarget, type CaptureOutcome } from './capture.js';
import type { CapturePlan } from './capture-plan.js';
import type { RunContext } from './run-context.js';

export interface SessionOptions {
  phase: CapturePhase;
  toolVersion: string;
  dryRun?: boolean;
  run?: RunInfo | null;
  /** Context gathered earlier (run takes it before dbt starts); else taken now if needed. */
  context?: RunContext;
  env: Record<string, string | undefined>;
  onProgress?: (done: number, total: number) => void;
  /** Told once, before the capture writes anything (capture.ts). */
  onWriting?: (plan: CapturePlan) => void;
}

/** Captures the configured project's target/ into its archive. */
export async function captureProject(config: AtticConfig, options: SessionOptions): Promise<CaptureOutcome> {
  if (!config.targetDir) {
    throw new AtticError('project-not-found', 'capture needs a dbt project: run it inside one, or pass --project-dir.');
  }
  // A dry run writes nothing, not even a new archive: without one, everything is new.
  const backend =
    options.dryRun && !config.remote && !existsSync(config.archiveLocation)
      ? new MemBackend()
      : await openArchive(config.archiveLocation, { create: !options.dryRun, remote: config.remote });
  return captureTarget(backend, {
    targetDir: config.targetDir.value,
    artifacts: config.artifacts.value,
    phase: options.phase,
    toolVersion: options.toolVersion,
    branch: config.branch?.value ?? null,
    // Loaded only when something new is written: git and execa cost ~120 ms of start-up, which
    // a capture of an unchanged target/ (before every dbt command) must not pay.
    context: async (ranAt) => options.context ?? (await import('./run-context.js')).takeRunContext(config, options.env, 'capture', [], ranAt),
    run: options.run ?? null,
    dryRun: options.dryRun ?? false,
    statCacheFile: path.join(config.localDir, 'capture-cache.json'),
    rememberArchived: config.remote !== null,
    outputs: {
      sql: config.capture.sql.value,
      logs: config.capture.logs.value,
      logDir: config.logDir?.value ?? null,
      sqlCacheFile: path.join(config.localDir, 'capture-cache-sql.json'),
    },
    onProgress: options.onProgress,
    onWriting: options.onWriting,
  });
}
