import { ExitCode } from '../../errors.js';
import type { GlobalFlags } from '../context.js';
import type { CliIo } from '../io.js';
import { TOOL_VERSION } from '../version.js';

interface McpFlags extends GlobalFlags {
  maxRows?: number;
  maxSeconds?: number;
  maxBytes?: number;
  maxRequestBytes?: number;
}

/** Runs until the client closes the connection; stdout carries the protocol, so we say nothing there. */
export default async function mcp(io: CliIo, flags: McpFlags): Promise<number> {
  // Loaded, not imported: mcp is the front end above cli (it calls cli's program), and the one
  // edge back down to it is this load, when `dbtattic mcp` runs (test/unit/layers.test.ts).
  const { serveMcp } = await import('../../mcp/index.js');
  const globalArgs = [...pair('--store', flags.store), ...pair('--project-dir', flags.projectDir), ...pair('--target-path', flags.targetPath)];
  await serveMcp({ cwd: io.cwd, env: io.env, globalArgs, maxRows: flags.maxRows ?? 1000, maxSeconds: flags.maxSeconds ?? 60, maxBytes: flags.maxBytes ?? 4_000_000, maxRequestBytes: flags.maxRequestBytes ?? 1_000_000, version: TOOL_VERSION });
  return ExitCode.ok;
}

function pair(name: string, value: string | undefined): string[] {
  return value ? [name, value] : [];
}
