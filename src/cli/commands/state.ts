import type { Command } from '@commander-js/extra-typings';
import { defineCommand, type FlagsOf } from '../command-module.js';
import path from 'node:path';
import { keySegment, openArchive, type Backend } from '../../archive/index.js';
import { handOutState } from '../../app/index.js';
import { AtticError, ExitCode } from '../../errors.js';
import { typedCommandName } from '../../extract/index.js';
import { checkStateDir, STATE_ARTIFACTS, synthesizePerNodeState, writePerNodeState } from '../../state/index.js';
import { ARTIFACT_TYPES, artifactFileName, isArtifactType, type ArtifactType } from '../../vocab/index.js';
import { loadConfig } from '../context.js';
import { printJson, type CliIo } from '../io.js';

const options = (command: Command) =>
  command
    .option('--last-success', 'the newest successful build or run (the default)')
    .option('--per-node', 'each node from its own newest successful build, across invocations (synthesized)')
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
    throw new AtticError(
      'usage',
      `--per-node builds the directory from each node's newest successful build; ${flags.lastSuccess ? '--last-success' : '--invocation'} chooses one invocation instead. Give one of them.`,
    );
  }
  if (flags.lastSuccess && flags.invocation) throw new AtticError('usage', '--last-success chooses the invocation; --invocation names one. Give one of them.');
  const artifacts = flags.artifacts === undefined ? STATE_ARTIFACTS : parseArtifacts(flags.artifacts);
  const config = loadConfig(io, flags);
  if (flags.perNode) {
    const backend = await openArchive(config.archiveLocation, { create: false, remote: config.remote });
    return statePerNode(io, backend, flags, path.join(config.localDir, 'state', perNodeDirName(flags)));
  }
  const handed = await handOutState(config, {
    invocation: flags.invocation,
    target: flags.target,
    branch: flags.branch,
    allowFailed: flags.allowFailed,
    commands: flags.command
      ?.split(',')
      .map((c) => c.trim())
      .filter(Boolean)
      .map(typedCommandName),
    artifacts,
    out: flags.out ? path.resolve(io.cwd, flags.out) : undefined,
  });
  const { answer } = handed;
  for (const line of handed.said) io.stderr(line.level === 'warning' ? `${io.color.yellow('warning:')} ${line.text}\n` : `note: ${line.text}\n`);
  if (flags.artifacts !== undefined && handed.missing.length > 0) {
    io.stderr(`note: invocation ${answer.invocation_id} has no ${handed.missing.map(artifactFileName).join(', ')} in the archive\n`);
  }
  if (flags.json) printJson(io, answer);
  else {
    if (answer.from_base) io.stderr(`note: branch ${answer.from_base.branch} has no success of its own; using its base ${answer.invocation_id}\n`);
    io.stdout(`${answer.path}\n`);
  }
  return ExitCode.ok;
}

/** `state --per-node`: each node from its own newest successful build (src/state/synthesize.ts). */
async function statePerNode(io: CliIo, backend: Backend, flags: StateFlags, defaultDir: string): Promise<number> {
  const state = await synthesizePerNodeState(backend, { target: flags.target, branch: flags.branch });
  const dir = flags.out ? path.resolve(io.cwd, flags.out) : defaultDir;
  if (flags.out) await checkStateDir(dir);
  const files = await writePerNodeState(state, dir);
  if (flags.json) printJson(io, { path: dir, ...state.provenance, files: files.map((f) => path.basename(f)) });
  else {
    if (state.provenance.left_out.length > 0)
      io.stderr(
        `note: ${state.provenance.left_out.length} node(s) left out (their last build's manifest is missing or of another version); dbt will see them as new\n`,
      );
    io.stdout(`${dir}\n`);
  }
  return ExitCode.ok;
}

function perNodeDirName(flags: StateFlags): string {
  return ['per-node', flags.branch, flags.target]
    .filter(Boolean)
    .map((part) => keySegment(part!))
    .join('-');
}

/** `--artifacts catalog,semantic_manifest` (or with .json): which archived artifacts to restore. */
function parseArtifacts(list: string): ArtifactType[] {
  const names = list
    .split(',')
    .map((n) => n.trim().replace(/\.json$/, ''))
    .filter(Boolean);
  const unknown = names.filter((n) => !isArtifactType(n));
  if (names.length === 0 || unknown.length > 0) {
    throw new AtticError(
      'usage',
      `--artifacts takes a comma-separated list of ${ARTIFACT_TYPES.join(', ')}${unknown.length ? ` (not: ${unknown.join(', ')})` : ''}.`,
    );
  }
  return [...new Set(names.filter(isArtifactType))];
}
