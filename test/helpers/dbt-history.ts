import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { builtOnce } from './built-once.js';
import { runCliProcess, type CliResult } from './cli.js';
import { dbtEnv, duckshopAt } from './real-dbt.js';

/**
 * One history of real dbt commands on examples/duckshop, every one through `dbtattic run -- dbt`,
 * built once per test run and read by the files that check it. After each command the test keeps
 * what dbt itself left (a copy of target/'s JSON files and of logs/dbt.log, and which files
 * that command wrote), so every check compares dbtattic with dbt's own files, never with
 * dbtattic's answers.
 */
export interface DbtStep {
  name: string;
  args: string[];
  exitCode: number;
  /** target/ files this command wrote or rewrote (by content), with their sha256. */
  wrote: Record<string, string>;
  /** dbt's invocation id, read from the files it wrote (run_results, else manifest or sources). */
  invocationId: string | null;
  /** Copy of target/'s JSON files, target/compiled and target/run, and logs/dbt.log right after the command, relative to the history dir. */
  snapshot: string;
}

export interface DbtHistory {
  dir: string;
  project: string;
  steps: DbtStep[];
  env: Record<string, string>;
}

/** The broken model of the failing build, and its fix for the retry. */
const BROKEN = { file: 'models/marts/dim_products.sql', from: /from /i, to: 'from (select * from no_such_relation) broken, ' };

const STEPS: { name: string; args: (history: string) => string[]; before?: (project: string) => void }[] = [
  { name: 'seed', args: () => ['seed'] },
  { name: 'run', args: () => ['run'] },
  { name: 'test', args: () => ['test'] },
  { name: 'snapshot', args: () => ['snapshot'] },
  { name: 'build', args: () => ['build'] },
  { name: 'source-freshness', args: () => ['source', 'freshness'] },
  { name: 'docs-generate', args: () => ['docs', 'generate'] },
  { name: 'compile', args: () => ['compile'] },
  { name: 'ls', args: () => ['ls'] },
  { name: 'show', args: () => ['show', '--select', 'dim_customers', '--limit', '3'] },
  { name: 'parse', args: () => ['parse'] },
  { name: 'build-broken', args: () => ['build'], before: (project) => editFile(project, BROKEN.file, (sql) => sql.replace(BROKEN.from, BROKEN.to)) },
  { name: 'retry', args: () => ['retry'], before: (project) => editFile(project, BROKEN.file, (sql) => sql.replace(BROKEN.to, 'from ')) },
  { name: 'clone', args: (history) => ['clone', '--state', path.join(history, 'state-of-build'), '--target', 'ci', '--exclude', 'customer_segments'] },
];

export function duckshopHistory(): Promise<DbtHistory> {
  return builtOnce('duckshop-history', build).then(read);
}

function read(dir: string): DbtHistory {
  const project = path.join(dir, 'project');
  return { dir, project, steps: JSON.parse(readFileSync(path.join(dir, 'steps.json'), 'utf8')) as DbtStep[], env: dbtEnv(project) };
}

async function build(dir: string): Promise<void> {
  const project = duckshopAt(path.join(dir, 'project'));
  const steps: DbtStep[] = [];
  for (const [i, step] of STEPS.entries()) {
    step.before?.(project);
    const before = targetHashes(project);
    const result = await dbtattic(project, ['run', '--', 'dbt', ...step.args(dir)]);
    if (result.exitCode > 1) throw new Error(`dbt ${step.name} exited ${result.exitCode}:\n${result.stdout}\n${result.stderr}`);
    const after = targetHashes(project);
    const wrote = Object.fromEntries(Object.entries(after).filter(([file, sha]) => before[file] !== sha));
    const snapshot = path.join('snapshots', `${String(i + 1).padStart(2, '0')}-${step.name}`);
    keepSnapshot(project, path.join(dir, snapshot));
    if (step.name === 'build') cpSync(path.join(project, 'target'), path.join(dir, 'state-of-build'), { recursive: true });
    steps.push({ name: step.name, args: step.args(dir), exitCode: result.exitCode, wrote, invocationId: invocationOf(project, wrote), snapshot });
  }
  writeFileSync(path.join(dir, 'steps.json'), `${JSON.stringify(steps, null, 2)}\n`);
}

export function dbtattic(project: string, args: string[], env: Record<string, string> = {}): Promise<CliResult> {
  return runCliProcess(args, { cwd: project, env: { ...dbtEnv(project), ...env } });
}

function editFile(project: string, file: string, edit: (text: string) => string): void {
  const at = path.join(project, file);
  const before = readFileSync(at, 'utf8');
  const after = edit(before);
  if (after === before) throw new Error(`the edit of ${file} changed nothing`);
  writeFileSync(at, after);
}

function targetHashes(project: string): Record<string, string> {
  const target = path.join(project, 'target');
  if (!existsSync(target)) return {};
  return Object.fromEntries(
    readdirSync(target)
      .filter((f) => f.endsWith('.json'))
      .map((f) => [
        f,
        createHash('sha256')
          .update(readFileSync(path.join(target, f)))
          .digest('hex'),
      ]),
  );
}

function keepSnapshot(project: string, into: string): void {
  mkdirSync(path.join(into, 'target'), { recursive: true });
  for (const f of readdirSync(path.join(project, 'target')).filter((x) => x.endsWith('.json')))
    cpSync(path.join(project, 'target', f), path.join(into, 'target', f));
  for (const dir of ['compiled', 'run']) {
    const from = path.join(project, 'target', dir);
    if (existsSync(from)) cpSync(from, path.join(into, 'target', dir), { recursive: true });
  }
  const log = path.join(project, 'logs', 'dbt.log');
  if (existsSync(log)) cpSync(log, path.join(into, 'dbt.log'));
}

function invocationOf(project: string, wrote: Record<string, string>): string | null {
  for (const file of ['run_results.json', 'manifest.json', 'sources.json', 'catalog.json']) {
    if (!(file in wrote)) continue;
    const doc = JSON.parse(readFileSync(path.join(project, 'target', file), 'utf8')) as { metadata?: { invocation_id?: string } };
    if (doc.metadata?.invocation_id) return doc.metadata.invocation_id;
  }
  return null;
}
