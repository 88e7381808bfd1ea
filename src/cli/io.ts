import chalk, { Chalk, type ChalkInstance } from 'chalk';
import { readStdin } from './stdin.js';
import { escapeControls, escapeForTerminal } from './terminal-text.js';

/**
 * Everything a command touches of the outside world, passed in so end-to-end tests and the
 * real process see the same code. Stdout is data; stderr is talk.
 */
export interface CliIo {
  cwd: string;
  env: Record<string, string | undefined>;
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  /** All of what was piped in; '' when stdin is a terminal (nobody is piping anything in). */
  readStdin: () => Promise<string>;
  /** Resolves once stdout has taken what was written (a pipe can be slower than a query). */
  drain?: () => Promise<void>;
  /** Colour, tables and progress only on a terminal. */
  isTTY: boolean;
  stderrIsTTY: boolean;
  /** The terminal's size when stdout is one; 0 when unknown. */
  columns: number;
  rows: number;
  color: ChalkInstance;
}

export function processIo(): CliIo {
  // `dbtattic history | head` closes the pipe early: that is the reader's choice, not an error.
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') process.exit(0);
    throw error;
  });
  const isTTY = Boolean(process.stdout.isTTY);
  const noColor = process.env.NO_COLOR !== undefined && process.env.NO_COLOR !== '';
  return {
    cwd: process.cwd(),
    env: process.env,
    // Artifacts' text may hold terminal commands: shown escaped, on a terminal and in a CI log alike.
    stdout: (text) => process.stdout.write(isTTY ? escapeForTerminal(text) : escapeControls(text)),
    // Colour follows stdout (io.color): a terminal's stdout with stderr sent to a file would write its codes there, escaped as text.
    stderr: (text) => process.stderr.write(process.stderr.isTTY ? escapeForTerminal(text) : escapeControls(withoutColour(text))),
    readStdin,
    drain: () => (process.stdout.writableNeedDrain ? new Promise<void>((resolve) => process.stdout.once('drain', () => resolve())) : Promise.resolve()),
    isTTY,
    stderrIsTTY: Boolean(process.stderr.isTTY) && (process.stderr.columns ?? 0) > 0,
    columns: isTTY ? (process.stdout.columns ?? 0) : 0,
    rows: isTTY ? (process.stdout.rows ?? 0) : 0,
    color: isTTY && !noColor ? chalk : new Chalk({ level: 0 }),
  };
}

/** What a command printed, kept by a `collectingIo`. */
export interface Printed {
  stdout: string;
  stderr: string;
}

/**
 * An io for a caller in this process (the MCP server, tests): what the command prints is kept,
 * as a process with stdout and stderr piped would print it (no terminal, no colour), and
 * `input` is its stdin.
 */
export function collectingIo(cwd: string, env: Record<string, string | undefined>, input = ''): { io: CliIo; printed: () => Printed } {
  const out: string[] = [];
  const err: string[] = [];
  const io: CliIo = {
    cwd,
    env,
    stdout: (text) => void out.push(text),
    stderr: (text) => void err.push(text),
    readStdin: async () => input,
    isTTY: false,
    stderrIsTTY: false,
    columns: 0,
    rows: 0,
    color: new Chalk({ level: 0 }),
  };
  return { io, printed: () => ({ stdout: out.join(''), stderr: err.join('') }) };
}

export function printJson(io: CliIo, value: unknown): void {
  io.stdout(`${JSON.stringify(value, null, 2)}\n`);
}

/** SGR sequences (colour, bold) only: anything else stays, to be shown escaped. */
function withoutColour(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/\x1b\[[0-9;]*m/g, '');
}
