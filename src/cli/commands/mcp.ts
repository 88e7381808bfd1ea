import type { Command } from '@commander-js/extra-typings';
import { defineCommand, type FlagsOf } from '../command-module.js';
import { positiveInt, positiveSeconds } from '../option-values.js';
import { ExitCode } from '../../errors.js';
import type { CliIo } from '../io.js';
import { TOOL_VERSION } from '../version.js';

const options = (command: Command) =>
  command
    .option('--max-rows <n>', 'the most rows a query tool may return', positiveInt, 1000)
    .option('--max-bytes <n>', 'the most bytes of rows (as JSON) one answer holds', positiveInt, 4_000_000)
    .option('--max-request-bytes <n>', 'a request larger than this is refused with a JSON-RPC error', positiveInt, 1_000_000)
    .option('--max-seconds <n>', 'the longest a query tool may run before it is stopped (query --timeout)', positiveSeconds, 60);

type McpFlags = FlagsOf<typeof options>;

export default defineCommand(options, mcp);

/** Runs until the client closes the connection; stdout carries the protocol, so we say nothing there. */
async function mcp(io: CliIo, flags: McpFlags): Promise<number> {
  // Loaded, not imported: mcp is a front end of its own beside cli, started only by
  // `dbtattic mcp` (test/unit/layers.test.ts).
  const { serveMcp } = await import('../../mcp/index.js');
  const { store, projectDir, targetPath } = flags;
  await serveMcp({
    cwd: io.cwd,
    env: io.env,
    flags: { store, projectDir, targetPath },
    maxRows: flags.maxRows ?? 1000,
    maxSeconds: flags.maxSeconds ?? 60,
    maxBytes: flags.maxBytes ?? 4_000_000,
    maxRequestBytes: flags.maxRequestBytes ?? 1_000_000,
    version: TOOL_VERSION,
  });
  return ExitCode.ok;
}
