import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { archiveDirOf, listArchiveFiles, listArtifactRecordFiles, readCaptureRecords, sha256Of, type CaptureEntry } from '../helpers/archive-files.js';
import { makeProject, runCli, runCliProcess, spawnCli } from '../helpers/cli.js';
import { CORPUS_DIR, hasCorpus } from '../helpers/corpus.js';
import { writeScaledManifest } from '../helpers/scaled-manifest.js';
import { syntheticRunResults, writeSyntheticTarget } from '../helpers/synthetic-artifacts.js';

/** Archive keys as docs/archive-format.md gives them. */
const objectPath = (archive: string, kind: 'chunks' | 'files', id: string): string => path.join(archive, kind, id.slice(0, 2), id.slice(2));

function chunkFiles(archive: string): string[] {
  return listArchiveFiles(path.join(archive, 'chunks')).filter((f) => !path.basename(f).startsWith('.tmp-'));
}

function fileIndex(archive: string, sha: string): { size: number; chunks: [string, number][] } {
  return JSON.parse(gunzipSync(readFileSync(objectPath(archive, 'files', sha))).toString('utf8')) as { size: number; chunks: [string, number][] };
}

/** A temp directory removed when the current test ends: some here hold tens of MB. */
function tempDir(prefix: string): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), prefix));
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** makeProject, removed when the current test ends. */
function tempProject(): { dir: string; target: string } {
  const project = makeProject();
  onTestFinished(() => rmSync(project.dir, { recursive: true, force: true }));
  return project;
}

/** Polls until `ready()` or the process ends, whichever comes first. */
async function until(ready: () => boolean, ended: Promise<unknown>): Promise<void> {
  let done = false;
  void ended.then(() => (done = true));
  while (!done && !ready()) await sleep(5);
}

describe('kill -9 in the middle of a capture', () => {
  it('leaves an archive that verifies, and the next capture completes with the exact bytes', async () => {
    const project = tempProject();
    const invocation = 'c0ffee00-0000-4000-8000-00000000kill';
    const manifest = path.join(project.target, 'manifest.json');
    const size = await writeScaledManifest(manifest, 48_000_000, invocation);
    writeFileSync(path.join(project.target, 'run_results.json'), syntheticRunResults({ invocationId: invocation }));
    const sha = sha256Of(manifest);
    const archive = archiveDirOf(project.dir);
    // About size / 64 KiB chunks in all; each kill lets a few more of them in.
    const step = Math.floor(size / 65_536 / 5);
    const moments: { label: string; ready: (start: number) => boolean }[] = [
      { label: 'as chunks/ appears', ready: () => existsSync(path.join(archive, 'chunks')) },
      { label: 'a fifth of the way', ready: (start) => chunkFiles(archive).length >= start + step },
      { label: 'two fifths further', ready: (start) => chunkFiles(archive).length >= start + 2 * step },
    ];
    for (const moment of moments) {
      const start = chunkFiles(archive).length;
      const child = spawnCli(['capture'], { cwd: project.dir });
      const ended = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
        child.once('close', (code, signal) => resolve({ code, signal })),
      );
      await until(() => moment.ready(start), ended);
      child.kill('SIGKILL');
      expect(await ended, moment.label).toEqual({ code: null, signal: 'SIGKILL' });
      expect(existsSync(objectPath(archive, 'files', sha)), `the manifest's index after a kill ${moment.label}`).toBe(false);
      const verify = await runCli(['verify'], { cwd: project.dir });
      expect(verify, moment.label).toMatchObject({ exitCode: 0, stdout: expect.stringMatching(/^ok: checked/), stderr: '' });
    }
    expect(chunkFiles(archive).length).toBeGreaterThanOrEqual(3 * step);

    const next = await runCli(['capture', '--json'], { cwd: project.dir });
    expect(next.exitCode).toBe(0);
    const artifacts = (JSON.parse(next.stdout) as { artifacts: CaptureEntry[] }).artifacts;
    expect(artifacts.find((a) => a.artifact === 'manifest')).toMatchObject({ status: 'captured', sha256: sha });
    expect(await runCli(['verify'], { cwd: project.dir })).toMatchObject({ exitCode: 0 });

    const out = path.join(project.dir, 'restored');
    expect((await runCli(['state', '--invocation', invocation, '--out', out], { cwd: project.dir })).exitCode).toBe(0);
    expect(sha256Of(path.join(out, 'manifest.json'))).toBe(sha);
    expect(readFileSync(path.join(out, 'manifest.json')).equals(readFileSync(manifest))).toBe(true);
  }, 180_000);
});

/** A target/ with a manifest of several chunks, run results and, from the corpus, a catalog. */
async function busyTarget(dir: string, invocation: string, manifestBytes: number): Promise<string[]> {
  await writeScaledManifest(path.join(dir, 'manifest.json'), manifestBytes, invocation);
  writeFileSync(path.join(dir, 'run_results.json'), syntheticRunResults({ invocationId: invocation }));
  if (hasCorpus)
    cpSync(path.join(CORPUS_DIR, 'typedef-medallion-snowflake-1.10.13/target-seq/01_2025-11-04_fa6a74d3/catalog.json'), path.join(dir, 'catalog.json'));
  return readdirSync(dir)
    .map((name) => name.replace(/\.json$/, ''))
    .sort();
}

describe('captures at the same time', () => {
  it('of one target/ into one archive: all succeed, each artifact is filed once, and it verifies', async () => {
    const project = tempProject();
    const present = await busyTarget(project.target, 'c0ffee00-0000-4000-8000-000000000003', 6_000_000);
    // Three processes: what is promised is that processes at once are safe.
    const results = await Promise.all([0, 1, 2].map(() => runCliProcess(['capture', '--json'], { cwd: project.dir })));
    expect(results.map((r) => r.exitCode)).toEqual([0, 0, 0]);

    const archive = archiveDirOf(project.dir);
    expect(
      listArtifactRecordFiles(archive)
        .map((r) => r.artifact)
        .sort(),
    ).toEqual(present);
    // Whoever filed a record said "captured"; the others found it there and said "unchanged".
    const said = results.flatMap((r) => (JSON.parse(r.stdout) as { artifacts: CaptureEntry[] }).artifacts);
    for (const artifact of present) {
      expect(
        said
          .filter((a) => a.artifact === artifact)
          .map((a) => a.status)
          .sort(),
        artifact,
      ).toEqual(['captured', 'unchanged', 'unchanged']);
    }
    const capturedInRecords = readCaptureRecords(archive).flatMap((r) => r.artifacts.filter((a) => a.status === 'captured').map((a) => a.artifact));
    expect(capturedInRecords.sort()).toEqual(present);
    expect(await runCli(['verify'], { cwd: project.dir })).toMatchObject({ exitCode: 0 });
  });

  it('of two different target/ dirs into one store: both complete', async () => {
    const store = tempDir('attic-shared-store-');
    const a = tempProject();
    const b = tempProject();
    await busyTarget(a.target, 'c0ffee00-0000-4000-8000-00000000000a', 4_000_000);
    await busyTarget(b.target, 'c0ffee00-0000-4000-8000-00000000000b', 4_000_000);
    const results = await Promise.all([a, b].map((p) => runCliProcess(['--store', store, 'capture', '--json'], { cwd: p.dir })));
    expect(results.map((r) => r.exitCode)).toEqual([0, 0]);
    const ours = (r: { invocation: string }): boolean => r.invocation.startsWith('c0ffee00-');
    const filed = listArtifactRecordFiles(path.join(store, 'archive'))
      .filter(ours)
      .map((r) => `${r.invocation.slice(-1)}/${r.artifact}`);
    expect(filed.sort()).toEqual(['a/manifest', 'a/run_results', 'b/manifest', 'b/run_results']);
    expect(await runCli(['--store', store, 'verify'], { cwd: a.dir })).toMatchObject({ exitCode: 0 });
  });
});

/** Where the damage goes: the manifest's file index, its artifact record, and its chunks. */
interface Facts {
  sha: string;
  recordKey: string;
  chunks: string[];
}

describe('verify on a damaged archive', () => {
  const invocation = 'c0ffee00-0000-4000-8000-0000000verify';
  /** A captured archive to copy for each kind of damage. */
  let pristine: { dir: string; target: string };
  beforeAll(async () => {
    pristine = makeProject();
    writeSyntheticTarget({ invocationId: invocation, statuses: ['success', 'pass', 'warn'], padNodes: 1500 }, pristine.target);
    expect((await runCli(['capture'], { cwd: pristine.dir })).exitCode).toBe(0);
  });
  afterAll(() => rmSync(pristine.dir, { recursive: true, force: true }));

  async function damagedCopy(damage: (archive: string, facts: Facts) => void): Promise<{ dir: string; facts: Facts }> {
    const dir = tempDir('attic-damaged-');
    cpSync(pristine.dir, dir, { recursive: true });
    const archive = archiveDirOf(dir);
    const record = listArtifactRecordFiles(archive).find((r) => r.artifact === 'manifest')!;
    const facts = { sha: record.sha256, recordKey: `records/invocations/${record.file}`, chunks: fileIndex(archive, record.sha256).chunks.map(([id]) => id) };
    damage(archive, facts);
    return { dir, facts };
  }

  async function problemsOf(dir: string): Promise<{ kind: string; key: string }[]> {
    const result = await runCli(['verify', '--json'], { cwd: dir });
    expect(result.exitCode).toBe(4);
    const report = JSON.parse(result.stdout) as { ok: boolean; problems: { kind: string; key: string; message: string }[] };
    expect(report.ok).toBe(false);
    return report.problems.map(({ kind, key }) => ({ kind, key })).sort((x, y) => x.key.localeCompare(y.key));
  }

  const chunkKey = (id: string): string => `chunks/${id.slice(0, 2)}/${id.slice(2)}`;
  const fileKey = (id: string): string => `files/${id.slice(0, 2)}/${id.slice(2)}`;

  it('passes the undamaged archive', async () => {
    const { dir, facts } = await damagedCopy(() => undefined);
    expect(facts.chunks.length).toBeGreaterThan(1);
    const result = await runCli(['verify'], { cwd: dir });
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toMatch(/^ok: checked \d+ chunks, 2 artifacts, 2 artifact records, 1 capture record\n$/);
    expect(result.stderr).toBe('');
  });

  it('finds a flipped byte in a chunk, and what it breaks', async () => {
    const { dir, facts } = await damagedCopy((archive, f) => {
      const file = objectPath(archive, 'chunks', f.chunks[1]!);
      const bytes = readFileSync(file);
      const middle = bytes.length >> 1;
      bytes[middle] = bytes[middle]! ^ 0x01;
      writeFileSync(file, bytes);
    });
    expect(await problemsOf(dir)).toEqual([
      { kind: 'corrupt-object', key: chunkKey(facts.chunks[1]!) },
      { kind: 'corrupt-object', key: fileKey(facts.sha) },
      { kind: 'dangling-record', key: facts.recordKey },
    ]);
    const human = await runCli(['verify'], { cwd: dir });
    expect(human.exitCode).toBe(4);
    expect(
      human.stdout
        .split('\n')
        .filter(Boolean)
        .map((line) => line.split('\t')[0]),
    ).toEqual(expect.arrayContaining(['corrupt-object', 'dangling-record']));
    expect(human.stdout).toMatch(/\n3 problems: checked [^\n]*\n$/);
  });

  it('finds a missing chunk', async () => {
    const { dir, facts } = await damagedCopy((archive, f) => rmSync(objectPath(archive, 'chunks', f.chunks[0]!)));
    expect(await problemsOf(dir)).toEqual([
      { kind: 'corrupt-object', key: fileKey(facts.sha) },
      { kind: 'dangling-record', key: facts.recordKey },
    ]);
  });

  it('finds an artifact record whose file index is missing', async () => {
    const { dir, facts } = await damagedCopy((archive, f) => rmSync(objectPath(archive, 'files', f.sha)));
    expect(await problemsOf(dir)).toEqual([{ kind: 'dangling-record', key: facts.recordKey }]);
  });

  it('finds a capture record naming a missing artifact record', async () => {
    const { dir } = await damagedCopy((archive, f) => rmSync(path.join(archive, f.recordKey)));
    const captureKey = `records/captures/${readdirSync(path.join(archiveDirOf(dir), 'records', 'captures'))[0]}`;
    expect(await problemsOf(dir)).toEqual([{ kind: 'dangling-record', key: captureKey }]);
  });
});

describe('capture of a manifest.json that is not a manifest object', () => {
  it.each([
    ['an empty file', ''],
    ['a JSON array', '[]'],
  ])('reports %s with its path, captures the rest, and exits 1', async (_label, content) => {
    const project = tempProject();
    writeSyntheticTarget({ invocationId: 'c0ffee00-0000-4000-8000-0000000empty' }, project.target);
    const manifest = path.join(project.target, 'manifest.json');
    writeFileSync(manifest, content);
    const result = await runCli(['capture'], { cwd: project.dir });
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toContain(`error: ${manifest}: it is not complete JSON (`);
    expect(result.stderr).toContain('expected an object');
    expect(result.stdout).toMatch(/^manifest\t-\terror\t/m);
    expect(result.stdout).toMatch(/^run_results\tc0ffee00\tcaptured\t/m);
    expect(listArtifactRecordFiles(archiveDirOf(project.dir)).map((r) => r.artifact)).toEqual(['run_results']);
  });
});
