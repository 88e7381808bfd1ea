import { existsSync } from 'node:fs';
import { openArchive, summarizeArchive, type ArchiveSummary } from '../../archive/index.js';
import type { AtticConfig } from '../../config/resolve.js';
import { ExitCode } from '../../errors.js';
import { loadConfig, type GlobalFlags } from '../context.js';
import { formatBytes } from '../format.js';
import { printJson, type CliIo } from '../io.js';
import { TOOL_VERSION } from '../version.js';

interface InfoFlags extends GlobalFlags {
  json?: boolean;
}

export default async function info(io: CliIo, flags: InfoFlags): Promise<number> {
  const config = loadConfig(io, flags);
  const archive = existsSync(config.archiveLocation)
    ? await summarizeArchive(await openArchive(config.archiveLocation, { create: false }))
    : null;
  if (flags.json) printJson(io, { version: TOOL_VERSION, config: configView(config), archive });
  else printHuman(io, config, archive);
  return ExitCode.ok;
}

function configView(config: AtticConfig): Record<string, unknown> {
  return {
    project_dir: config.projectDir,
    project_name: config.projectName,
    store: config.store,
    target_dir: config.targetDir,
    artifacts: config.artifacts,
    branch: config.branch,
    catalog: config.catalog ? { source: config.catalog.source } : null,
    archive: config.archiveLocation,
    database: config.databaseFile,
  };
}

function printHuman(io: CliIo, config: AtticConfig, archive: ArchiveSummary | null): void {
  const line = (key: string, value: string, source?: string): void =>
    io.stdout(`${key.padEnd(14)}${value}${source ? io.color.dim(`  (${source})`) : ''}\n`);
  line('version', TOOL_VERSION);
  line('project', config.projectDir?.value ?? '-', config.projectDir?.source);
  line('target', config.targetDir?.value ?? '-', config.targetDir?.source);
  line('store', config.store.value, config.store.source);
  line('artifacts', config.artifacts.value.join(', '), config.artifacts.source);
  line('branch', config.branch?.value ?? '(the git branch)', config.branch?.source);
  if (!archive) {
    line('archive', 'none yet: run dbtattic capture');
    return;
  }
  line('invocations', String(archive.invocations));
  line('archived', `${archive.artifactRecords} records of ${archive.files} distinct files, ${archive.chunks} chunks`);
  const ratio = archive.storedBytes > 0 ? (archive.logicalBytes / archive.storedBytes).toFixed(1) : '-';
  line('size', `${formatBytes(archive.logicalBytes)} of artifacts in ${formatBytes(archive.storedBytes)} stored (${ratio}x)`);
}
