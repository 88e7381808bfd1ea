import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { collectingIo } from '../../src/cli/io.js';
import { Chalk } from 'chalk';
import { escapeControls, escapeForTerminal } from '../../src/cli/terminal-text.js';

const here = path.dirname(fileURLToPath(import.meta.url));
export const REPO_DIR = path.resolve(here, '../..');
export const BIN = path.join(REPO_DIR, 'bin', 'dbtattic.js');

export interface CliResult {
  exitCode: number;
  stdout: string;
  stderr: string;
}

/**
 * Calls the CLI's `main(argv, io)` in this process, as the process would with stdout and stderr
 * piped (no terminal, no colour) and a clean environment plus `env`: what a command prints and
 * its exit code, at no process start. A test where the process boundary is the point (an exit
 * by a signal, kill -9, locks held by two processes, the S3 SDK reading its keys from the
 * environment) uses `runCliProcess`.
 */
export async function runCli(args: string[], options: { cwd: string; env?: Record<string, string>; input?: string }): Promise<CliResult> {
  const { main } = await import('../../src/cli/main.js');
  const { io, printed } = collectingIo(options.cwd, cliEnv(options.env), options.input);
  const exitCode = await main(args, io);
  // As a process writing to a pipe shows them (processIo).
  const { stdout, stderr } = printed();
  return { exitCode, stdout: escapeControls(stdout), stderr: escapeControls(stderr) };
}

/**
 * `runCli` with stdout on a terminal `columns` wide, in colour (which takes no width), and no
 * pager: what a user at that terminal sees, colours taken out of what is returned.
 */
export async function runCliOnTerminal(args: string[], options: { cwd: string; columns: number; env?: Record<string, string> }): Promise<CliResult> {
  const { main } = await import('../../src/cli/main.js');
  const { io, printed } = collectingIo(options.cwd, cliEnv({ ...options.env, NO_COLOR: '' }));
  const exitCode = await main(args, { ...io, isTTY: true, columns: options.columns, rows: 0, color: new Chalk({ level: 1 }) });
  const { stdout, stderr } = printed();
  // eslint-disable-next-line no-control-regex
  const plain = (text: string): string => escapeForTerminal(text).replace(/\x1b\[[0-9;]*m/g, '');
  return { exitCode, stdout: plain(stdout), stderr: plain(stderr) };
}

/** Runs the built CLI in a process of its own, as a user would, in `cwd`, with a clean environment plus `env`. */
export function runCliProcess(args: string[], options: { cwd: string; env?: Record<string, string> }): Promise<CliResult> {
  return new Promise((resolve) => {
    execFile(process.execPath, [BIN, ...args], { cwd: options.cwd, env: cliEnv(options.env), maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
      const code = error && typeof error.code === 'number' ? error.code : error ? 1 : 0;
      resolve({ exitCode: code, stdout, stderr });
    });
  });
}

export function spawnCli(args: string[], options: { cwd: string; env?: Record<string, string> }): ChildProcess {
  return spawn(process.execPath, [BIN, ...args], { cwd: options.cwd, env: cliEnv(options.env), stdio: ['ignore', 'pipe', 'pipe'] });
}

function cliEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const keep = ['PATH', 'HOME', 'TMPDIR', 'SYSTEMROOT', 'LANG'];
  const env: NodeJS.ProcessEnv = {};
  for (const key of keep) if (process.env[key] !== undefined) env[key] = process.env[key];
  return { ...env, NO_COLOR: '1', ...extra };
}

/** A throwaway dbt project: dbt_project.yml and a target/ holding copies of the given files. */
export function makeProject(artifacts: Record<string, string> = {}, name = 'attic_test'): { dir: string; target: string } {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'attic-project-'));
  writeFileSync(path.join(dir, 'dbt_project.yml'), `name: ${name}\nversion: '1.0'\nprofile: ${name}\n`);
  const target = path.join(dir, 'target');
  mkdirSync(target);
  putTarget(target, artifacts);
  return { dir, target };
}

/** Replaces target/'s artifacts with copies of the given files (artifact file name → source path). */
export function putTarget(target: string, artifacts: Record<string, string>): void {
  for (const [name, source] of Object.entries(artifacts)) cpSync(source, path.join(target, name));
}

/** Masks what changes from run to run, so outputs can be compared as text. */
export function mask(text: string, paths: string[] = []): string {
  let out = text;
  for (const p of paths) out = out.split(p).join('<DIR>');
  return out
    .replace(/\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/g, '<UUID>')
    .replace(/\b[0-9a-f]{64}\b/g, '<SHA>')
    .replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z?/g, '<TIME>');
}
