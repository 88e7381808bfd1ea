import { type Command } from '@commander-js/extra-typings';
import { defineCommand, type FlagsOf } from '../command-module.js';
import path from 'node:path';
import { keySegment, openArchive, putHandoutRecord, type Backend } from '../../archive/index.js';
import { AtticError, ExitCode, isAtticError } from '../../errors.js';
import { typedCommandName } from '../../extract/index.js';
import { checkStateDir, chooseState, STATE_ARTIFACTS, synthesizePerNodeState, writePerNodeState, writeStateDir, type ChosenState, type StateQuery } from '../../state/index.js';
import { ARTIFACT_TYPES, artifactFileName, isArtifactType, newTimeId, type ArtifactType } from '../../vocab/index.js';
import { loadConfig } from '../context.js';
import { printJson, type CliIo } from '../io.js';

const options = (command: Command) => command
  .option('--last-success', 'the newest successful build or run (the default)')
  .option('--per-node', "each node from its own newest successful build, across invocations (synthesized)")
  .option('--invocation <id>', 'a given invocation, by id or unique prefix')
  .option('--target <name>', 'only invocations run against this dbt target')
  .option('--command <names>', 'which dbt commands count as a success (comma-separated)', 'build,run')
  .option('--branch <name>', "only this line of history; falls back to the branch's base")
  .option('--out <dir>', 'where to write it (default: <store>/state/<invocation>)')
  .option('--artifacts <names>', 'which archived artifacts to write (comma-separated; default: manifest,run_results,sources)')
  .option('--allow-failed', "with --branch: accept the branch's base even if that run failed")
  .option('--json', 'print what was chosen as JSON');

type StateFlags = FlagsOf<typeof options>;

export default defineCommand(options, state);

/** Prints only the directory's path: `dbt build --state "$(dbtattic state --last-success)"`. */
async function state(io: CliIo, flags: StateFlags): Promise<number> {
  if (flags.perNode && (flags.lastSuccess || flags.invocation)) {
    throw new AtticError('usage', `--per-node builds the directory from each node's newest successful build; ${flags.lastSuccess ? '--last-success' : '--invocation'} chooses one invocation instead. Give one of them.`);
  }
  if (flags.lastSuccess && flags.invocation) throw new AtticError('usage', '--last-success chooses the invocation; --invocation names one. Give one of them.');
  const artifacts = flags.artifacts === undefined ? STATE_ARTIFACTS : parseArtifacts(flags.artifacts);
  const config = loadConfig(io, flags);
  const backend = await openArchive(config.archiveLocation, { create: false, remote: config.remote });
  if (flags.perNode) return statePerNode(io, backend, flags, path.join(config.localDir, 'state', perNodeDirName(flags)));
  const query: StateQuery = {
    invocation: flags.invocation,
    target: flags.target,
    branch: flags.branch,
    walk: config.remote !== null,
    allowFailed: flags.allowFailed,
    commands: flags.command?.split(',').map((c) => c.trim()).filter(Boolean).map(typedCommandName),
  };
  if (flags.out) await checkStateDir(path.resolve(io.cwd, flags.out));
  const dirOf = (id: string): string => (flags.out ? path.resolve(io.cwd, flags.out) : path.join(config.localDir, 'state', keySegment(id)));
  const { chosen, dir, files } = await writeIntactState(io, backend, query, dirOf, artifacts);
  await recordHandout(io, backend, chosen.invocation.invocationId);
  const missing = artifacts.filter((a) => !files.some((f) => path.basename(f) === artifactFileName(a)));
  if (flags.artifacts !== undefined && missing.length > 0) {
    io.stderr(`note: invocation ${chosen.invocation.invocationId} has no ${missing.map(artifactFileName).join(', ')} in the archive\n`);
  }
  if (flags.json) {
    printJson(io, {
      path: dir,
      invocation_id: chosen.invocation.invocationId,
      generated_at: chosen.invocation.generatedAt,
      command: chosen.summary?.command ?? null,
      target: chosen.summary?.target ?? null,
      results: chosen.summary?.byStatus ?? null,
      files: files.map((f) => path.basename(f)),
      from_base: chosen.fromBase ?? null,
    });
  } else {
    if (chosen.fromBase) io.stderr(`note: branch ${chosen.fromBase.branch} has no success of its own; using its base ${chosen.invocation.invocationId}\n`);
    io.stdout(`${dir}\n`);
  }
  return ExitCode.ok;
}

/** Retention keeps what a job was handed (docs/retention.md); a store we may not write to still answers. */
async function recordHandout(io: CliIo, backend: Backend, invocationId: string): Promise<void> {
  const now = new Date();
  await putHandoutRecord(backend, { handout_id: newTimeId(now), invocation_id: invocationId, by: 'state', at: now.toISOString() }).catch((error: unknown) => {
    io.stderr(`note: could not record that ${invocationId} was handed out (${error instanceof Error ? error.message : String(error)}); forget may remove it\n`);
  });
}

/** `state --per-node`: each node from its own newest successful build (src/state/synthesize.ts). */
async function statePerNode(io: CliIo, backend: Backend, flags: StateFlags, defaultDir: string): Promise<number> {
  const state = await synthesizePerNodeState(backend, { target: flags.target, branch: flags.branch });
  const dir = flags.out ? path.resolve(io.cwd, flags.out) : defaultDir;
  if (flags.out) await checkStateDir(dir);
  const files = await writePerNodeState(state, dir);
  if (flags.json) printJson(io, { path: dir, ...state.provenance, files: files.map((f) => path.basename(f)) });
  else {
    if (state.provenance.left_out.length > 0) io.stderr(`note: ${state.provenance.left_out.length} node(s) left out (their last build's manifest is missing or of another version); dbt will see them as new\n`);
    io.stdout(`${dir}\n`);
  }
  return ExitCode.ok;
}

function perNodeDirName(flags: StateFlags): string {
  return ['per-node', flags.branch, flags.target].filter(Boolean).map((part) => keySegment(part!)).join('-');
}

/** `--artifacts catalog,semantic_manifest` (or with .json): which archived artifacts to restore. */
function parseArtifacts(list: string): ArtifactType[] {
  const names = list.split(',').map((n) => n.trim().replace(/\.json$/, '')).filter(Boolean);
  const unknown = names.filter((n) => !isArtifactType(n));
  if (names.length === 0 || unknown.length > 0) {
    throw new AtticError('usage', `--artifacts takes a comma-separated list of ${ARTIFACT_TYPES.join(', ')}${unknown.length ? ` (not: ${unknown.join(', ')})` : ''}.`);
  }
  return [...new Set(names.filter(isArtifactType))];
}

/**
 * Never hands out damaged bytes, yet still finds the newest intact success: an invocation whose
 * artifacts turn out damaged while being written is passed over, with a warning, for the next.
 * An invocation asked for by id is not replaced by another.
 */
async function writeIntactState(io: CliIo, backend: Backend, query: StateQuery, dirOf: (id: string) => string, artifacts: readonly ArtifactType[]): Promise<{ chosen: ChosenState; dir: string; files: string[] }> {
  const exclude = new Set<string>();
  for (;;) {
    const chosen = await chooseState(backend, { ...query, exclude });
    const dir = dirOf(chosen.invocation.invocationId);
    try {
      return { chosen, dir, files: await writeStateDir(backend, chosen.invocation, dir, artifacts) };
    } catch (error) {
      if (query.invocation || !isAtticError(error) || error.code !== 'archive-damaged') throw error;
      io.stderr(`${io.color.yellow('warning:')} passing over ${chosen.invocation.invocationId}: ${error.message}\n`);
      exclude.add(chosen.invocation.invocationId);
    }
  }
}
