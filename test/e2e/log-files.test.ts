import { execFileSync } from 'node:child_process';
import { mkdirSync, rmSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { archiveDirOf, listArtifactRecordFiles } from '../helpers/archive-files.js';
import { makeProject, runCli } from '../helpers/cli.js';
import { writeSyntheticTarget } from '../helpers/synthetic-artifacts.js';

/**
 * dbt.log is one output of a capture: whatever stands in logs/ (a link to /dev/null, the usual
 * way to silence dbt's file log; /dev/zero; a FIFO; a directory; a file past the bound), as
 * dbt.log or as any rotated dbt.log.N, the artifacts are archived, the file is named in a
 * warning, and the capture exits 0. Each kind at each place: the matrix below.
 */
const KINDS: [string, (file: string) => void][] = [
  ['a link to /dev/null', (file) => symlinkSync('/dev/null', file)],
  ['a link to /dev/zero', (file) => symlinkSync('/dev/zero', file)],
  ['a FIFO', (file) => execFileSync('mkfifo', [file])],
  ['a directory', (file) => mkdirSync(file)],
  // Sparse: its size is past the bound (512 MB) without the disk holding it.
  ['a 600 MB file', (file) => {
    writeFileSync(file, '');
    truncateSync(file, 600 * 1024 * 1024);
  }],
];
const PLACES = ['dbt.log', 'dbt.log.3'];

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup();
});

describe('a dbt.log that is no log to read', () => {
  for (const [kind, make] of KINDS) {
    it.each(PLACES)(`${kind} as %s: the artifacts are archived, the file is named, exit 0`, async (place) => {
      const project = makeProject();
      cleanups.push(() => rmSync(project.dir, { recursive: true, force: true }));
      const id = '10600000-0000-4000-8000-00000000106f';
      writeSyntheticTarget({ invocationId: id }, project.target);
      const logs = path.join(project.dir, 'logs');
      mkdirSync(logs);
      // Beside the odd one, a real log of the run, which is still filed when the odd one is a backup.
      if (place !== 'dbt.log') writeFileSync(path.join(logs, 'dbt.log'), `============================== 10:00:00.000000 | ${id} ==============================\n10:00:00.100000 [info ] [MainThread]: Running with dbt=1.9.4\n`);
      make(path.join(logs, place));

      const captured = await runCli(['capture', '--quiet'], { cwd: project.dir });
      expect(captured.exitCode, captured.stderr).toBe(0);
      expect(captured.stderr).toContain(`warning: log`);
      expect(captured.stderr).toContain(`${path.join(logs, place)} was left out: `);
      // Read from the archive's files, not from an answer of ours.
      expect(listArtifactRecordFiles(archiveDirOf(project.dir)).map((r) => `${r.invocation}/${r.artifact}`).sort()).toEqual([`${id}/manifest`, `${id}/run_results`]);
      expect((await runCli(['verify'], { cwd: project.dir })).exitCode).toBe(0);
    });
  }
});
