import { spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN } from '../helpers/cli.js';
import { replayedHistory, type ReplayedHistory } from '../helpers/replay.js';

/**
 * Issue 46: a killed export leaves no file a reader would take as whole, and the next export
 * makes the dataset exactly what an export never killed makes. `export` is killed with SIGKILL
 * as soon as its k-th data file is in place, on the fixture history.
 */
describe('an export killed while it writes', () => {
  let history: ReplayedHistory;
  beforeAll(async () => {
    history = await replayedHistory();
  }, 300_000);
  afterAll(() => history?.remove());

  /** Every file a reader lists (Spark and Hive skip names starting with '.' or '_'), relative. */
  const visible = (dir: string, under = ''): string[] =>
    readdirSync(path.join(dir, under), { withFileTypes: true }).flatMap((entry) => {
      if (entry.name.startsWith('.') || entry.name.startsWith('_')) return [];
      const rel = path.join(under, entry.name);
      return entry.isDirectory() ? visible(dir, rel) : [rel];
    });
  const dataFiles = (dir: string): string[] => {
    try {
      return visible(dir).filter((f) => f.endsWith('.parquet'));
    } catch {
      return [];
    }
  };

  /** Starts an export and SIGKILLs it once `files` data files are in place; whether it was killed. */
  const killedAfter = (out: string, files: number): Promise<boolean> =>
    new Promise((resolve) => {
      const child = spawn(process.execPath, [BIN, 'export', '--to', out, '--json'], { cwd: history.project, stdio: 'ignore' });
      const poll = setInterval(() => {
        if (dataFiles(out).length >= files) child.kill('SIGKILL');
      }, 2);
      child.on('exit', (_code, signal) => {
        clearInterval(poll);
        resolve(signal === 'SIGKILL');
      });
    });

  const readAll = async (files: string[], dir: string): Promise<Record<string, unknown[]>> => {
    const { DuckDBInstance } = await import('@duckdb/node-api');
    const connection = await (await DuckDBInstance.create(':memory:')).connect();
    const out: Record<string, unknown[]> = {};
    for (const file of files)
      out[file] = (await connection.runAndReadAll(`SELECT * FROM read_parquet('${path.join(dir, file)}') ORDER BY ALL`)).getRowObjectsJson();
    return out;
  };

  it('leaves only whole files, and the next export gives the dataset of one never killed', async () => {
    const whole = path.join(history.workDir, 'never-killed');
    expect((await history.cli(['export', '--to', whole])).exitCode).toBe(0);
    const expected = dataFiles(whole).sort();
    expect(expected.length).toBeGreaterThan(10);

    let killedOnce = false;
    for (const files of [1, Math.floor(expected.length / 2)]) {
      const out = path.join(history.workDir, `killed-after-${files}`);
      killedOnce = (await killedAfter(out, files)) || killedOnce;
      // Whatever it left is readable whole: a half-written file would fail to read here.
      const left = dataFiles(out);
      expect(
        left.every((f) => expected.includes(f)),
        left.filter((f) => !expected.includes(f)).join(', '),
      ).toBe(true);
      await readAll(left, out);
      const again = await history.cli(['export', '--to', out]);
      expect(again.exitCode, again.stderr).toBe(0);
      expect(dataFiles(out).sort()).toEqual(expected);
      expect(await readAll(expected, out)).toEqual(await readAll(expected, whole));
    }
    expect(killedOnce).toBe(true);
  }, 300_000);
});
