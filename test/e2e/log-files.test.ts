import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, rmSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { archiveDirOf, listArchiveFiles, listArtifactRecordFiles } from '../helpers/archive-files.js';
import { seededRandom } from '../fuzz/mutations.js';
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
  [
    'a 600 MB file',
    (file) => {
      writeFileSync(file, '');
      truncateSync(file, 600 * 1024 * 1024);
    },
  ],
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
      if (place !== 'dbt.log')
        writeFileSync(
          path.join(logs, 'dbt.log'),
          `============================== 10:00:00.000000 | ${id} ==============================\n10:00:00.100000 [info ] [MainThread]: Running with dbt=1.9.4\n`,
        );
      make(path.join(logs, place));

      const captured = await runCli(['capture', '--quiet'], { cwd: project.dir });
      expect(captured.exitCode, captured.stderr).toBe(0);
      expect(captured.stderr).toContain(`warning: log`);
      expect(captured.stderr).toContain(`${path.join(logs, place)} was left out: `);
      // Read from the archive's files, not from an answer of ours.
      expect(
        listArtifactRecordFiles(archiveDirOf(project.dir))
          .map((r) => `${r.invocation}/${r.artifact}`)
          .sort(),
      ).toEqual([`${id}/manifest`, `${id}/run_results`]);
      expect((await runCli(['verify'], { cwd: project.dir })).exitCode).toBe(0);
    });
  }
});

/**
 * A property over kinds and sizes: seeded random logs/ directories, each of dbt.log and three
 * backups absent, a log of the run, random bytes of a random size (NULs, invalid UTF-8, lone
 * carriage returns, a line of a megabyte), or one of the kinds above. Whatever stands there, the
 * artifacts are archived, each odd file is named, and the archive verifies.
 */
const SEED = Number(process.env.DBTATTIC_FUZZ_SEED ?? 7);
/** A sample in `npm test`; the slow lane (DBTATTIC_TEST_FULL=1) tries more. */
const ROUNDS = process.env.DBTATTIC_TEST_FULL === '1' ? 60 : 6;

describe(`${ROUNDS} seeded random logs/ directories (seed ${SEED})`, () => {
  it('never cost the capture its artifacts', async () => {
    const random = seededRandom(SEED);
    const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
    const randomBytes = (): Buffer => {
      const size = pick([0, 1, 100, 4096, 65_536, 1_048_576]);
      const bytes = Buffer.alloc(size);
      for (let i = 0; i < size; i++) bytes[i] = pick([0, 0x0a, 0x0d, 0x80, 0xff, 0x41, 0xc3, 0x20]);
      return bytes;
    };
    for (let round = 0; round < ROUNDS; round++) {
      const project = makeProject();
      cleanups.push(() => rmSync(project.dir, { recursive: true, force: true }));
      const id = `10600000-0000-4000-8000-0000000001${String(round).padStart(2, '0')}`;
      writeSyntheticTarget({ invocationId: id }, project.target);
      const logs = path.join(project.dir, 'logs');
      mkdirSync(logs);
      const odd: string[] = [];
      for (const place of ['dbt.log', 'dbt.log.1', 'dbt.log.2', 'dbt.log.3']) {
        const file = path.join(logs, place);
        const choice = Math.floor(random() * 4);
        if (choice === 1)
          writeFileSync(
            file,
            `============================== 10:00:00.000000 | ${id} ==============================\n10:00:00.100000 [info ] [MainThread]: Running with dbt=1.9.4\n`,
          );
        if (choice === 2) writeFileSync(file, randomBytes());
        if (choice === 3) {
          const [, make] = pick(KINDS);
          make(file);
          odd.push(file);
        }
      }

      const captured = await runCli(['capture', '--quiet'], { cwd: project.dir });
      const label = `round ${round}: ${readdirSync(logs).join(', ')}`;
      expect(captured.exitCode, `${label}\n${captured.stderr}`).toBe(0);
      // With no dbt.log there is nothing new to slice, and the backups are not read at all.
      const read = readdirSync(logs).includes('dbt.log');
      for (const file of read ? odd : []) expect(captured.stderr, label).toContain(`${file} was left out: `);
      expect(listArchiveFiles(archiveDirOf(project.dir)).length, label).toBeGreaterThan(0);
      expect(
        listArtifactRecordFiles(archiveDirOf(project.dir))
          .map((r) => `${r.invocation}/${r.artifact}`)
          .sort(),
        label,
      ).toEqual([`${id}/manifest`, `${id}/run_results`]);
      expect((await runCli(['verify'], { cwd: project.dir })).exitCode, label).toBe(0);
    }
  }, 900_000);
});
