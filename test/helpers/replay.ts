import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Step, StepDefinition } from '../../fixtures/generate.mjs';
import { openReplay, prepareReplay, settleBackgroundWork, type Replay, type ReplayResult } from '../../fixtures/replay.mjs';
import { builtOnce } from './built-once.js';
import { readJson, type Json } from './artifact-facts.js';
import { runCli, runCliProcess, type CliResult } from './cli.js';

/**
 * The fixture history (fixtures/README.md) replayed through `dbtattic run` into a git
 * repository, for end-to-end tests. Children get a clean environment: a CI variable such as
 * GITHUB_HEAD_REF, or DBTATTIC_BRANCH in the developer's shell, would change the branch runs
 * are filed on.
 */
export interface ReplayedHistory extends Replay {
  workDir: string;
  /** The commit HEAD named after each replayed step. */
  shaAfter: Map<number, string>;
  /** `dbtattic run`'s exit code at each replayed step. */
  exitCodes: Map<number, number>;
  step(n: number): Step;
  /** An artifact the step's command wrote, as JSON; null when the step did not write it. */
  artifactOf(step: Step, file: 'manifest.json' | 'run_results.json' | 'sources.json'): Json | null;
  /** `dbtattic ARGS` in the project, in this process (`runCli`); `attic` runs it in a process of its own. */
  cli(args: string[], env?: Record<string, string>): Promise<CliResult>;
  /** `cli` whose stdout must be JSON and whose exit code must be 0. */
  json<T>(args: string[], env?: Record<string, string>): Promise<T>;
  remove(): void;
}

export function cleanEnv(extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = { NO_COLOR: '1' };
  for (const key of ['PATH', 'HOME', 'TMPDIR', 'LANG']) if (process.env[key] !== undefined) env[key] = process.env[key]!;
  return { ...env, ...extra };
}

export function startReplay(stepDefs?: StepDefinition[]): ReplayedHistory {
  const workDir = mkdtempSync(path.join(os.tmpdir(), 'attic-replay-'));
  return historyOf(workDir, prepareReplay(workDir, { env: cleanEnv(), stepDefs }), new Map());
}

/**
 * The whole fixture history replayed, every step, as `startReplay` then `replayStep` of each
 * step would leave it: replayed once per test run (built-once.ts) and copied, whole, for each
 * caller, whose commands then change only its own copy.
 */
export async function replayedHistory(): Promise<ReplayedHistory> {
  const template = await builtOnce('replayed-history', async (dir) => {
    const history = historyOf(dir, prepareReplay(dir, { env: cleanEnv() }), new Map());
    for (const step of history.steps) history.replayStep(step);
    // Copied only once no detached catch-up or compaction writes under it: a copy may take a store half-written.
    settleBackgroundWork(dir);
    writeFileSync(path.join(dir, 'replayed.json'), JSON.stringify({ shaAfter: [...history.shaAfter], exitCodes: [...history.exitCodes] }));
  });
  const workDir = mkdtempSync(path.join(os.tmpdir(), 'attic-replay-'));
  cpSync(template, workDir, { recursive: true });
  const replayed = JSON.parse(readFileSync(path.join(workDir, 'replayed.json'), 'utf8')) as { shaAfter: [number, string][]; exitCodes: [number, number][] };
  return historyOf(workDir, openReplay(workDir, { env: cleanEnv() }), new Map(replayed.shaAfter), new Map(replayed.exitCodes));
}

function historyOf(workDir: string, replay: Replay, shaAfter: Map<number, string>, exitCodes = new Map<number, number>()): ReplayedHistory {
  const parsed = new Map<string, Json>();
  const readOnce = (file: string): Json => parsed.get(file) ?? parsed.set(file, readJson(file)).get(file)!;
  const replayStep = (step: Step, extraArgs: string[] = [], env: Record<string, string> = {}): ReplayResult => {
    const result = replay.replayStep(step, extraArgs, env);
    shaAfter.set(step.step, gitHead(replay.project));
    exitCodes.set(step.step, result.exitCode);
    return result;
  };
  const cli = (args: string[], env: Record<string, string> = {}): Promise<CliResult> =>
    runCli(args, { cwd: replay.project, env: { PATH: `${path.join(workDir, 'bin')}${path.delimiter}${process.env.PATH ?? ''}`, ...env } });
  return {
    ...replay,
    replayStep,
    workDir,
    shaAfter,
    exitCodes,
    step: (n) => replay.steps.find((s) => s.step === n) ?? fail(`no step ${n}`),
    artifactOf: (step, file) => (step.artifacts_written.includes(file) ? readOnce(path.join(replay.history, step.dir, 'target', file)) : null),
    cli,
    async json<T>(args: string[], env: Record<string, string> = {}): Promise<T> {
      const result = await cli(args, env);
      if (result.exitCode !== 0) fail(`dbtattic ${args.join(' ')} exited ${result.exitCode}: ${result.stderr}`);
      return JSON.parse(result.stdout) as T;
    },
    remove: () => rmSync(workDir, { recursive: true, force: true }),
  };
}

/**
 * The same as `replayStep`, without blocking this process while dbtattic runs: a stand-in
 * server in the test process (a catalog) must keep answering meanwhile.
 */
export async function replayStepAsync(replay: ReplayedHistory, step: Step, env: Record<string, string> = {}): Promise<CliResult> {
  cpSync(path.join(replay.history, step.dir, 'project'), replay.project, { recursive: true });
  const git = (...args: string[]): void => {
    execFileSync('git', ['-c', 'user.name=replay', '-c', 'user.email=replay@dbtattic.invalid', ...args], {
      cwd: replay.project,
      stdio: 'ignore',
      env: cleanEnv(),
    });
  };
  git('add', '-A');
  git('commit', '-q', '--allow-empty', '-m', `step ${step.step}: ${step.slug}`);
  replay.shaAfter.set(step.step, gitHead(replay.project));
  const fakeBin = path.join(replay.workDir, 'bin');
  return runCliProcess(['run', '--', ...step.command.split(' ')], {
    cwd: replay.project,
    env: {
      PATH: `${fakeBin}${path.delimiter}${process.env.PATH ?? ''}`,
      FAKE_DBT_DELAY_MS: '0',
      FAKE_DBT_REPLAY: path.join(replay.history, step.dir, 'target'),
      ...env,
    },
  });
}

export function gitHead(dir: string): string {
  return execFileSync('git', ['rev-parse', 'HEAD'], { cwd: dir, encoding: 'utf8', env: cleanEnv() }).trim();
}

function fail(message: string): never {
  throw new Error(message);
}
