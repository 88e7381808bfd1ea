import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openReplay, prepareReplay, type Replay } from '../../fixtures/replay.mjs';
import { builtOnce } from '../helpers/built-once.js';
import { cleanEnv } from '../helpers/replay.js';

/** The package install-package.ts installed for this run, and the Node line it runs on. */
export const PREFIX = process.env.DBTATTIC_SMOKE_PREFIX ?? '';
export const TARBALL = process.env.DBTATTIC_SMOKE_TARBALL ?? '';
export const INSTALLED_BIN = path.join(PREFIX, 'bin', 'dbtattic');
export const NODE_BIN = path.dirname(process.execPath);

export interface Ran {
  exitCode: number;
  stdout: string;
  stderr: string;
}

/** A clean environment whose `node` is the one under test: the installed bin's `#!/usr/bin/env node` finds it. */
export function lineEnv(extra: Record<string, string> = {}): Record<string, string> {
  const env = cleanEnv(extra);
  return { ...env, PATH: `${NODE_BIN}${path.delimiter}${env.PATH ?? ''}` };
}

export function attic(args: string[], cwd: string, env: Record<string, string> = {}): Ran {
  const result = spawnSync(INSTALLED_BIN, args, { cwd, env: lineEnv(env), encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  return { exitCode: result.status ?? 1, stdout: result.stdout ?? '', stderr: result.stderr ?? '' };
}

/** `attic` whose exit code must be 0 and whose stdout is JSON. */
export function atticJson<T>(args: string[], cwd: string, env: Record<string, string> = {}): T {
  const ran = attic([...args, '--json'], cwd, env);
  if (ran.exitCode !== 0) throw new Error(`dbtattic ${args.join(' ')} exited ${ran.exitCode}: ${ran.stderr}${ran.stdout}`);
  return JSON.parse(ran.stdout) as T;
}

/**
 * The fixture history replayed through the installed package (its `run`, with the stand-in dbt),
 * once per run, and a copy of it for the caller.
 */
export async function installedHistory(): Promise<Replay & { workDir: string }> {
  const template = await builtOnce('smoke-history', async (dir) => {
    const replay = prepareReplay(dir, { env: lineEnv(), bin: INSTALLED_BIN });
    for (const step of replay.steps) {
      const ran = replay.replayStep(step);
      if (ran.exitCode !== step.exit_code) throw new Error(`step ${step.step} (${step.command}) exited ${ran.exitCode}, not ${step.exit_code}: ${ran.stderr}`);
    }
  });
  const workDir = mkdtempSync(path.join(os.tmpdir(), 'smoke-history-'));
  cpSync(template, workDir, { recursive: true });
  return { ...openReplay(workDir, { env: lineEnv(), bin: INSTALLED_BIN }), workDir };
}
