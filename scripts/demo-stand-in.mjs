// The demo where no real dbt can be had (no Python 3.10+, or no PyPI): replays the twelve-step
// synthetic history of fixtures/project through `dbtattic run -- dbt …` (fixtures/replay.mjs: a
// stand-in dbt writes target/), then shows what dbtattic knows. Returns verify's exit status.
import { prepareReplay } from '../fixtures/replay.mjs';
import { say, shown } from './demo-say.mjs';

export function standInDemo(work) {
  const { steps, project, attic, replayStep } = prepareReplay(work, { stdio: 'inherit' });
  say(`dbtattic demo: a synthetic history of fixtures/project (fixtures/README.md), replayed in ${project}`);
  for (const step of steps) {
    say(`$ dbtattic run -- ${step.command}        # step ${step.step}: ${step.description}`);
    const { exitCode } = replayStep(step);
    process.stdout.write(`(exit ${exitCode}; dbt exits ${step.exit_code} on this step)\n`);
  }
  const show = shown((args) => attic(args).exitCode);
  show(['history']);
  show(['state', '--last-success'], 'for: dbt build --select state:modified+ --state <that dir>');
  show(['inspect', '@main'], 'the code, data and run behind the latest invocation, and what changed');
  show(['diff', steps[0].invocation_id.slice(0, 8), steps[1].invocation_id.slice(0, 8)], 'step 2 only reformatted a model: a cosmetic change');
  show(['query', 'select unique_id, change_kind, what_changed from v_node_changes order by to_seq limit 8']);
  show(['info']);
  return show(['verify']);
}
