import { Option, type Command } from '@commander-js/extra-typings';
import { defineCommand, type FlagsOf } from '../command-module.js';
import { catalogConfigProblem } from '../../capture/catalog/config.js';
import { captureProject } from '../../capture/session.js';
import { ExitCode } from '../../errors.js';
import { findProjectDir } from '../../config/dbt-project.js';
import { CAPTURE_PHASES, isCapturePhase } from '../../vocab/index.js';
import { loadConfig } from '../context.js';
import type { CliIo } from '../io.js';
import { storeAhead, updateStoreAfter } from '../after-capture.js';
import { captureRows, printCaptureResult } from '../print-capture.js';
import { archiveAbbreviator } from '../abbreviate.js';
import { startProgress } from '../progress.js';
import { TOOL_VERSION } from '../version.js';

const options = (command: Command) =>
  command
    .addOption(new Option('--phase <phase>', 'when this capture happens relative to dbt').choices([...CAPTURE_PHASES]).default('manual'))
    .option('--branch <name>', 'the line of history to file this capture on')
    .option('--dry-run', 'show what would be captured, write nothing')
    .option('--quiet', 'print nothing unless something failed')
    .option('--json', 'print the result as JSON');

type CaptureFlags = FlagsOf<typeof options>;

export default defineCommand(options, capture);

async function capture(io: CliIo, flags: CaptureFlags): Promise<number> {
  const phase = flags.phase && isCapturePhase(flags.phase) ? flags.phase : 'manual';
  if (phase === 'pre' && outsideAnyProject(io, flags)) return ExitCode.ok;
  const config = loadConfig(io, flags);
  // A broken `catalog:` (a URI with credentials, say) is an error, said at every capture; the
  // artifacts are still kept, since target/ will not wait for the fix.
  const catalogProblem = config.catalog ? catalogConfigProblem(config.catalog.value) : null;
  // Uploads to a remote store can be long: a progress line on a terminal (never in CI logs).
  const progress = config.remote && !flags.quiet ? startProgress(io, 'uploading (bytes)') : null;
  // A pre capture runs in front of dbt (the shell wrapper): it only reads and archives bytes.
  // Ingest, which parses and fingerprints, is left to the next read or the next capture after dbt.
  const ingests = !flags.dryRun && phase !== 'pre';
  const ahead = ingests ? storeAhead(config) : undefined;
  const outcome = await captureProject(config, {
    phase,
    toolVersion: TOOL_VERSION,
    dryRun: flags.dryRun ?? false,
    env: io.env,
    onProgress: progress?.update,
    onWriting: ahead?.onWriting,
  })
    .catch(async (error: unknown) => {
      await ahead?.release();
      throw error;
    })
    .finally(() => progress?.stop());
  if (ingests) await updateStoreAfter(io, config, [outcome], flags.quiet ?? false, ahead);
  const human = !flags.json && !flags.quiet;
  const shown = captureRows(outcome).flatMap((r) => (r.invocation_id ? [r.invocation_id] : []));
  const abbreviate = human ? await archiveAbbreviator(config, shown) : (id: string) => id;
  const failed = printCaptureResult(io, outcome, { json: flags.json ?? false, quiet: flags.quiet ?? false, abbreviate });
  if (catalogProblem) {
    io.stderr(`${io.color.red('error:')} ${catalogProblem} The artifacts were captured without a catalog snapshot; fix dbtattic.yml.\n`);
    return ExitCode.usage;
  }
  return failed ? ExitCode.partial : ExitCode.ok;
}

/**
 * A shell wrapper captures before every dbt call, also `dbt init` or `dbt --version` outside any
 * project: nothing to capture there, and nothing to say. A project named by flag or environment
 * that is not one is still an error.
 */
function outsideAnyProject(io: CliIo, flags: CaptureFlags): boolean {
  if (flags.projectDir || io.env.DBT_PROJECT_DIR) return false;
  return findProjectDir(io.cwd) === null;
}
