import { collectingIo } from '../cli/io.js';
import { main } from '../cli/main.js';

export interface CliAnswer {
  exitCode: number;
  stdout: string;
  stderr: string;
}

export interface CliCaller {
  (argv: string[]): Promise<CliAnswer>;
}

/**
 * Runs the CLI's program in this process, one command at a time: two commands opening the
 * store at once would each hold a DuckDB instance on one file. Its output is collected, never
 * written to the real stdout, which carries the protocol.
 */
export function cliCaller(cwd: string, env: Record<string, string | undefined>, globalArgs: string[]): CliCaller {
  let queue: Promise<unknown> = Promise.resolve();
  return (argv) => {
    // Global flags right after the command's name: after a `--` they would be read as SQL.
    const call = queue.then(() => runCollected([argv[0]!, ...globalArgs, ...argv.slice(1)], cwd, env));
    queue = call.catch(() => undefined);
    return call;
  };
}

async function runCollected(argv: string[], cwd: string, env: Record<string, string | undefined>): Promise<CliAnswer> {
  // A tool call has no stdin of its own: the server's stdin is the JSON-RPC stream.
  const { io, printed } = collectingIo(cwd, env);
  const exitCode = await main(argv, io);
  return { exitCode, ...printed() };
}
