import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { FsBackend } from '../../src/archive/backends/fs.js';
import { CHUNKS_PREFIX, FILES_PREFIX, putArtifactRecord, putBlob, type Backend } from '../../src/archive/index.js';
import { applyForget } from '../../src/retention/index.js';
import { runCli, spawnCli } from '../helpers/cli.js';

/**
 * kill -9 of prune at points spread over its run (start-up, mark, the wait, the sweep): each
 * time, `verify` accepts the archive. Every round forgets a fresh batch of invocations whose
 * artifacts share nothing, so each prune has hundreds of objects to delete.
 */
const dir = mkdtempSync(path.join(os.tmpdir(), 'dbtattic-prune-kill-'));
const store = path.join(dir, 'store');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function fileBatch(backend: Backend, round: number, count: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    const id = `round${round}-${i}`;
    // incompressible, so each artifact is chunks of its own
    const bytes = Buffer.from(JSON.stringify({ metadata: { invocation_id: id }, pad: randomBytes(48_000).toString('base64') }));
    const put = await putBlob(backend, bytes);
    await putArtifactRecord(backend, {
      kind: 'artifact',
      format: 1,
      invocation_id: id,
      invocation_id_source: 'metadata',
      artifact: 'manifest',
      sha256: put.id,
      size: bytes.length,
      dbt_schema_version: null,
      dbt_version: null,
      generated_at: new Date().toISOString(),
      captured_at: new Date().toISOString(),
      capture_id: `0000000000000-${String(round).padStart(12, '0')}`,
      phase: 'manual',
    });
    ids.push(id);
  }
  return ids;
}

async function objectCount(backend: Backend): Promise<number> {
  return (await backend.list(FILES_PREFIX)).length + (await backend.list(CHUNKS_PREFIX)).length;
}

/** Whether process `pid` has put up its sweep marker (a killed one's stays until the next prune). */
function sweepOf(sweeps: string, pid: number | undefined): boolean {
  if (!existsSync(sweeps)) return false;
  return readdirSync(sweeps).some((name) => {
    try {
      return (JSON.parse(readFileSync(path.join(sweeps, name), 'utf8')) as { pid: number }).pid === pid;
    } catch {
      return false;
    }
  });
}

/**
 * Kills a prune `ms` after it starts or, with `inSweep`, `ms` after its sweep marker appears
 * (the deletions run for only milliseconds: a delay from start-up alone rarely lands in them).
 */
function killAfter(ms: number, inSweep: boolean): Promise<void> {
  const child = spawnCli(['prune', '--grace', '0', '--store', store], { cwd: dir });
  const sweeps = path.join(store, 'archive', 'locks', 'sweeps');
  return new Promise((resolve) => {
    let timer: NodeJS.Timeout | undefined;
    const watch = setInterval(() => {
      if (!inSweep || sweepOf(sweeps, child.pid)) {
        clearInterval(watch);
        timer = setTimeout(() => child.kill('SIGKILL'), ms);
      }
    }, 1);
    child.on('exit', () => {
      clearInterval(watch);
      clearTimeout(timer);
      resolve();
    });
  });
}

describe('prune killed with SIGKILL', () => {
  it('leaves an archive verify accepts, at every point tried', async () => {
    const backend = new FsBackend(path.join(store, 'archive'));
    await backend.putIfAbsent('FORMAT', Buffer.from('dbtattic-archive 1\n'));
    await fileBatch(backend, 0, 5);
    const keptObjects = await objectCount(backend);
    const points: [number, boolean][] = [
      [60, false],
      [400, false],
      [0, true],
      [15, true],
      [30, true],
      [45, true],
      [60, true],
      [80, true],
      [110, true],
      [150, true],
    ];
    const outcomes: ('none' | 'partial' | 'all')[] = [];
    let round = 0;
    /** One round: a fresh batch forgotten, a prune killed; says how far the prune got. */
    const killedRound = async (delay: number, inSweep: boolean): Promise<'none' | 'partial' | 'all'> => {
      round += 1;
      const forgotten = await fileBatch(backend, round, 80);
      await applyForget(backend, forgotten, 'test', new Date());
      const before = await objectCount(backend);
      await killAfter(delay, inSweep);
      const after = await objectCount(backend);
      const verified = await runCli(['verify', '--json', '--store', store], { cwd: dir });
      expect(JSON.parse(verified.stdout).problems, `killed after ${delay} ms`).toEqual([]);
      const outcome = after === before ? 'none' : after === keptObjects ? 'all' : 'partial';
      outcomes.push(outcome);
      return outcome;
    };
    for (const [delay, inSweep] of points) await killedRound(delay, inSweep);
    // On a loaded machine the re-mark before the deletions can outlast every fixed delay: search
    // for the deletions' window instead, so a kill surely lands inside it.
    let [early, late] = [0, 3000];
    for (let tries = 0; !outcomes.includes('partial') && tries < 16; tries++) {
      const delay = Math.round((early + late) / 2);
      const outcome = await killedRound(delay, true);
      if (outcome === 'none') early = delay;
      if (outcome === 'all') late = delay;
    }
    // some kill landed mid-sweep: some objects gone, not all
    expect(outcomes).toContain('partial');
    // a prune left to finish removes what the killed ones left, and their sweep markers
    const finished = await runCli(['prune', '--grace', '0', '--json', '--store', store], { cwd: dir });
    expect(finished.exitCode).toBe(0);
    expect(await objectCount(backend)).toBe(keptObjects);
    expect(await backend.list('locks/')).toEqual([]);
    expect((await runCli(['verify', '--store', store], { cwd: dir })).exitCode).toBe(0);
  }, 600_000);
});
