// `npm run demo`: the main job on the project's own fixtures. Replays the twelve-step synthetic
// history of fixtures/project through `dbtattic run -- dbt …` (fixtures/replay.mjs: a stand-in
// dbt writes target/, since no dbt can be installed here), then shows what dbtattic knows.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { prepareReplay } from '../fixtures/replay.mjs';

const work = process.argv[2] ? path.resolve(process.argv[2]) : mkdtempSync(path.join(os.tmpdir(), 'dbtattic-demo-'));
rmSync(work, { recursive: true, force: true });
const { steps, project, attic, replayStep } = prepareReplay(work, { stdio: 'inherit' });
const say = (text) => process.stdout.write(`\n${process.stdout.isTTY ? `\x1b[1m${text}\x1b[0m` : text}\n`);

say(`dbtattic demo: a synthetic history of fixtures/project (fixtures/README.md), replayed in ${project}`);
for (const step of steps) {
  say(`$ dbtattic run -- ${step.command}        # step ${step.step}: ${step.description}`);
  const { exitCode } = replayStep(step);
  process.stdout.write(`(exit ${exitCode}; dbt exits ${step.exit_code} on this step)\n`);
}

const show = (args, note = '') => {
  say(`$ dbtattic ${args.map((a) => (/\s/.test(a) ? `"${a}"` : a)).join(' ')}${note ? `        # ${note}` : ''}`);
  return attic(args).exitCode;
};
show(['history']);
show(['state', '--last-success'], 'for: dbt build --select state:modified+ --state <that dir>');
show(['inspect', '@main'], 'the code, data and run behind the latest invocation, and what changed');
show(['diff', steps[0].invocation_id.slice(0, 8), steps[1].invocation_id.slice(0, 8)], 'step 2 only reformatted a model: a cosmetic change');
show(['query', 'select unique_id, change_kind, what_changed from v_node_changes order by to_seq limit 8']);
show(['info']);
process.exitCode = show(['verify']);
