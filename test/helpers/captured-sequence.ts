import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { generateSequence, type Step, type StepDefinition } from '../../fixtures/generate.mjs';
import { runCli, type CliResult } from './cli.js';

/**
 * A synthetic sequence of our own (fixtures/generate.mjs with steps a test defines), captured
 * step by step into one project: each step's target/ replaces the last, then `dbtattic capture`
 * files it, on the branch and with the environment the test gives. Faster than a replay
 * through `dbtattic run` and git, and enough when the test is about what the archive holds.
 */
export interface CapturedSequence {
  project: string;
  history: string;
  steps: Step[];
  step(slug: string): Step;
  attic(args: string[], env?: Record<string, string>): Promise<CliResult>;
  /** `attic … --json`, which must exit 0. */
  json<T>(args: string[], env?: Record<string, string>): Promise<T>;
  remove(): void;
}

export interface CaptureEach {
  branch?: (step: Step) => string;
  env?: (step: Step) => Record<string, string>;
  /** Extra files put in the project before the first capture (dbtattic.yml). */
  files?: Record<string, string>;
}

export async function captureSequence(definitions: StepDefinition[], label: string, each: CaptureEach = {}): Promise<CapturedSequence> {
  const workDir = mkdtempSync(path.join(os.tmpdir(), `attic-${label}-`));
  const history = path.join(workDir, 'history');
  const project = path.join(workDir, 'project');
  const steps = generateSequence(history, definitions, { label });
  const attic = (args: string[], env: Record<string, string> = {}): Promise<CliResult> => runCli(args, { cwd: project, env });
  for (const step of steps) {
    cpSync(path.join(history, step.dir, 'project'), project, { recursive: true });
    for (const [name, text] of Object.entries(each.files ?? {})) writeFileSync(path.join(project, name), text);
    rmSync(path.join(project, 'target'), { recursive: true, force: true });
    cpSync(path.join(history, step.dir, 'target'), path.join(project, 'target'), { recursive: true });
    const branch = each.branch?.(step);
    const result = await attic(['capture', '--quiet', ...(branch ? ['--branch', branch] : [])], each.env?.(step) ?? {});
    if (result.exitCode !== 0) throw new Error(`capture of ${step.dir} exited ${result.exitCode}: ${result.stderr}`);
  }
  return {
    project,
    history,
    steps,
    step: (slug) => steps.find((s) => s.slug === slug) ?? fail(`no step ${slug}`),
    attic,
    async json<T>(args: string[], env: Record<string, string> = {}): Promise<T> {
      const result = await attic([...args, '--json'], env);
      if (result.exitCode !== 0) fail(`dbtattic ${args.join(' ')} exited ${result.exitCode}: ${result.stderr}`);
      return JSON.parse(result.stdout) as T;
    },
    remove: () => rmSync(workDir, { recursive: true, force: true }),
  };
}

function fail(message: string): never {
  throw new Error(message);
}
