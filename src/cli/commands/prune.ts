import { openArchive } from '../../archive/index.js';
import { ExitCode } from '../../errors.js';
import { pruneArchive, resolvePruneGrace } from '../../retention/index.js';
import { countOf } from '../../vocab/index.js';
import { loadConfig, type GlobalFlags } from '../context.js';
import { formatBytes } from '../format.js';
import { printJson, type CliIo } from '../io.js';

interface PruneFlags extends GlobalFlags {
  dryRun?: boolean;
  grace?: string;
  json?: boolean;
}

/** Deletes the objects no record needs, beside captures at work (docs/retention.md). */
export default async function prune(io: CliIo, flags: PruneFlags): Promise<number> {
  const config = loadConfig(io, flags);
  const graceMs = resolvePruneGrace(flags.grace, config.retention?.value);
  const backend = await openArchive(config.archiveLocation, { create: false, remote: config.remote });
  const report = await pruneArchive(backend, { now: new Date(), graceMs, dryRun: Boolean(flags.dryRun), onNote: (what) => io.stderr(`prune: ${what}\n`) });
  if (flags.json) {
    printJson(io, { dry_run: report.dryRun, grace_ms: graceMs, files: report.files, chunks: report.chunks, bytes: report.bytes, young: report.young, rescued: report.rescued });
    return ExitCode.ok;
  }
  const verb = report.dryRun ? 'would delete' : 'deleted';
  io.stdout(`${verb} ${countOf(report.files, 'file')} and ${countOf(report.chunks, 'chunk')}: ${formatBytes(report.bytes)}\n`);
  if (report.young > 0) io.stderr(`${countOf(report.young, 'unreferenced object')} younger than the grace period stay for a later prune\n`);
  if (report.rescued > 0) io.stderr(`${countOf(report.rescued, 'object')} reused by a capture while prune ran were kept\n`);
  return ExitCode.ok;
}
