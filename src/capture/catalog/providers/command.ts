import { execa } from 'execa';
import { AtticError } from '../../../errors.js';
import type { CommandConfig, EnvConfig } from '../config.js';
import type { ProviderContext, ProviderReading } from '../provider.js';
import { countOf } from '../../../vocab/index.js';

/**
 * For catalogs we do not speak to: a command the user names (run without a shell, so no
 * quoting surprises) whose trimmed stdout is the snapshot id, or a variable their
 * orchestrator already set. One line, at most MAX_ID_LENGTH characters: anything longer is
 * a log, not an id.
 */

const MAX_ID_LENGTH = 512;

export async function readCommandSnapshot(config: CommandConfig, ctx: ProviderContext): Promise<ProviderReading> {
  const [program, ...args] = config.command;
  const what = `catalog command ${program}`;
  const result = await execa(program!, args, {
    env: ctx.env,
    extendEnv: false,
    timeout: ctx.timeoutMs,
    cancelSignal: ctx.signal,
    // A command that ignores SIGTERM must not stretch timeout_ms: it is killed outright.
    killSignal: 'SIGKILL',
    reject: false,
    stdin: 'ignore',
    maxBuffer: 1024 * 1024,
  });
  if (result.timedOut || result.isCanceled) throw new AtticError('catalog', `${what}: no answer within ${ctx.timeoutMs} ms; raise catalog.timeout_ms.`);
  if (result.failed) {
    const detail = firstLine(String(result.stderr ?? '')) || firstLine(result.shortMessage ?? '');
    throw new AtticError('catalog', `${what}: failed (${result.exitCode === undefined ? 'did not run' : `exit ${result.exitCode}`}): ${detail}`);
  }
  return { snapshotId: validateId(String(result.stdout ?? '').trim(), what) };
}

export function readEnvSnapshot(config: EnvConfig, ctx: ProviderContext): ProviderReading {
  const value = ctx.env[config.variable]?.trim() ?? '';
  if (value === '') throw new AtticError('catalog', `environment variable ${config.variable} (named by catalog.variable) is not set.`);
  return { snapshotId: validateId(value, `environment variable ${config.variable}`) };
}

function validateId(id: string, what: string): string {
  if (id === '') throw new AtticError('catalog', `${what}: printed nothing; it should print the snapshot id.`);
  if (id.includes('\n') || id.length > MAX_ID_LENGTH) {
    throw new AtticError(
      'catalog',
      `${what}: expected one snapshot id of at most ${MAX_ID_LENGTH} characters on one line, got ${countOf(id.split('\n').length, 'line')}, ${countOf(id.length, 'character')}.`,
    );
  }
  return id;
}

function firstLine(text: string): string {
  return text.trim().split('\n')[0]?.slice(0, 200) ?? '';
}
