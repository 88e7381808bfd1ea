// `npm run demo`: the main job. With Python 3.10+ (and PyPI, the first time), a real dbt builds
// our example project examples/duckshop through `dbtattic run` (scripts/demo-real-dbt.mjs);
// without, a stand-in dbt replays the synthetic history of fixtures/ (scripts/demo-stand-in.mjs),
// saying so in one line. DBTATTIC_DEMO_STAND_IN=1 asks for the stand-in.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { dbtVenv } from './duckshop.mjs';
import { realDbtDemo } from './demo-real-dbt.mjs';
import { standInDemo } from './demo-stand-in.mjs';

const work = process.argv[2] ? path.resolve(process.argv[2]) : mkdtempSync(path.join(os.tmpdir(), 'dbtattic-demo-'));
rmSync(work, { recursive: true, force: true });
const venv = process.env.DBTATTIC_DEMO_STAND_IN === '1' ? { bin: null, reason: 'DBTATTIC_DEMO_STAND_IN=1' } : dbtVenv({ quiet: !process.stderr.isTTY });
if (venv.bin) {
  process.exitCode = realDbtDemo(work, venv.bin);
} else {
  process.stdout.write(`no real dbt here (${venv.reason}): the demo replays a synthetic history with a stand-in dbt instead\n`);
  process.exitCode = standInDemo(work);
}
