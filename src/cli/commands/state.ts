import path from 'node:path';
import { keySegment, openArchive } from '../../archive/index.js';
import { ExitCode } from '../../errors.js';
import type { Backend } from '../../archive/index.js';
import { checkStateDir, chooseState, synthesizePerNodeState, writePerNodeState, writeStateDir } from '../../state/index.js';
import { loadConfig, type GlobalFlags } from '../context.js';
import { printJson, type CliIo } from '../io.js';

interface StateFlags extends GlobalFlags {
  lastSuccess?: boolean;
  perNode?: boolean;
  invocation?: string;
  target?: string;
  command?: string;
  out?: string;
  allowFailed?: boolean;
  json?: boolean;
}

/** Prints only the directory's path: `dbt build --state "$(dbtattic state --last-success)"`. */
export default async function state(io: CliIo, flags: StateFlags): Promise<number> {
  const config = loadConfig(io, flags);
  const backend = await openArchive(config.archiveLocation, { create: false, remote: config.remote });
  if (flags.perNode) return statePerNode(io, backend, flags, path.join(config.store.value, 'state', perNodeDirName(flags)));
  const chosen = await chooseState(backend, {
    invocation: flags.invocation,
    target: flags.target,
    branch: flags.branch,
    walk: config.remote !== null,
    allowFailed: flags.allowFailed,
    commands: flags.command?.split(',').map((c) => c.trim()).filter(Boolean),
  });
  const dir = flags.out ? path.resolve(io.cwd, flags.out) : path.join(config.localDir, 'state', keySegment(chosen.invocation.invocationId));
  if (flags.out) await checkStateDir(dir);
  const files = await writeStateDir(backend, chosen.invocation, dir);
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
