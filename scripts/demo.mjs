// `npm run demo`: the main job on the project's own fixtures. Replays the twelve-step synthetic
// history of fixtures/project through `dbtattic run -- dbt …`, with a stand-in `dbt` that
// writes target/ as dbt does (no dbt can be installed here), committing each step's project
// files to git first so every run is bound to a commit. Then shows what dbtattic knows.
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { generateSequence } from '../fixtures/generate.mjs';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const bin = path.join(repo, 'bin', 'dbtattic.js');
const work = process.argv[2] ? path.resolve(process.argv[2]) : mkdtempSync(path.join(os.tmpdir(), 'dbtattic-demo-'));
const history = path.join(work, 'history');
const project = path.join(work, 'attic_shop');
const fakeBin = path.join(work, 'bin');

const say = (text) => process.stdout.write(`\n\x1b[1m${text}\x1b[0m\n`);
const git = (...args) => execFileSync('git', ['-c', 'user.name=demo', '-c', 'user.email=demo@dbtattic.invalid', ...args], { cwd: project, stdio: 'ignore' });
const env = { ...process.env, PATH: `${fakeBin}${path.delimiter}${process.env.PATH}`, FAKE_DBT_DELAY_MS: '0' };
const attic = (args, extra = {}) => spawnSync(process.execPath, [bin, ...args], { cwd: project, env: { ...env, ...extra }, stdio: 'inherit' }).status;

rmSync(work, { recursive: true, force: true });
mkdirSync(fakeBin, { recursive: true });
symlinkSync(path.join(repo, 'test', 'helpers', 'fake-dbt.mjs'), path.join(fakeBin, 'dbt'));
const steps = generateSequence(history);
say(`dbtattic demo in ${work} (synthetic fixtures: fixtures/README.md)`);

mkdirSync(project);
execFileSync('git', ['init', '-q', '-b', 'main'], { cwd: project });
writeFileSync(path.join(project, '.gitignore'), 'target/\n.dbtattic/\nlogs/\n');
for (const step of steps) {
  cpSync(path.join(history, step.dir, 'project'), project, { recursive: true });
  git('add', '-A');
  git('commit', '-q', '--allow-empty', '-m', `step ${step.step}: ${step.slug}`);
  const argv = step.command.split(' ');
  say(`$ dbtattic run -- ${step.command}        # step ${step.step}: ${step.description}`);
  const code = attic(['run', '--', ...argv], { FAKE_DBT_REPLAY: path.join(history, step.dir, 'target') });
  process.stdout.write(`(exit ${code}; dbt would exit ${step.exit_code})\n`);
}

say('$ dbtattic history');
attic(['history']);
say('$ dbtattic state --last-success        # for: dbt build --select state:modified+ --state <dir>');
attic(['state', '--last-success']);
say('$ dbtattic query "select name, runs, median_s, p95_s from v_node_runtime order by median_s desc limit 5"');
attic(['query', 'select * from v_node_runtime order by 1 limit 5']);
say('$ dbtattic info');
attic(['info']);
say('$ dbtattic verify');
const verified = attic(['verify']);
process.exitCode = verified;
