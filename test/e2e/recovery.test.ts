import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { resolveConfig } from '../../src/config/resolve.js';
import { TOOLS } from '../../src/mcp/tools.js';
import { archiveDirOf, listArtifactRecordFiles, sha256Of } from '../helpers/archive-files.js';
import { makeProject, runCli } from '../helpers/cli.js';
import { writeSyntheticTarget } from '../helpers/synthetic-artifacts.js';
import { startWatched, type WatchedProcess } from '../helpers/watched-process.js';

/**
 * Issue 9, recovery: damage is contained to what is damaged, reported and repairable; everything
 * else keeps working. Every archive here is made by the test from synthetic artifacts whose ids,
 * times and statuses the test chose, so what each command must answer is known beforehand.
 */
const IDS = ['00000001-0000-4000-8000-00000000d0c1', '00000002-0000-4000-8000-00000000d0c2', '00000003-0000-4000-8000-00000000d0c3'];

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup();
});

let template: Promise<string> | null = null;
afterAll(async () => {
  if (template) rmSync(await template, { recursive: true, force: true });
});

/** A project whose archive holds three successful builds, newest last: captured once, copied for each test. */
async function projectWithHistory(): Promise<{ dir: string; target: string; archive: string; store: string }> {
  template ??= captureHistory();
  const dir = mkdtempSync(path.join(os.tmpdir(), 'attic-project-'));
  cpSync(await template, dir, { recursive: true });
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return { dir, target: path.join(dir, 'target'), archive: archiveDirOf(dir), store: path.join(dir, '.dbtattic', 'store.duckdb') };
}

async function captureHistory(): Promise<string> {
  const project = makeProject();
  for (const [i, id] of IDS.entries()) {
    writeSyntheticTarget({ invocationId: id, generatedAt: `2026-03-0${i + 1}T10:00:00.000000Z` }, project.target);
    expect((await runCli(['capture', '--quiet'], { cwd: project.dir })).exitCode).toBe(0);
  }
  return project.dir;
}

const objectFile = (archive: string, kind: 'chunks' | 'files', id: string): string => path.join(archive, kind, id.slice(0, 2), id.slice(2));

function recordOf(archive: string, invocation: string, artifact: string): { file: string; sha256: string } {
  const found = listArtifactRecordFiles(archive).find((r) => r.invocation === invocation && r.artifact === artifact);
  if (!found) throw new Error(`no ${artifact} record of ${invocation}`);
  return { file: path.join(archive, 'records', 'invocations', found.file), sha256: found.sha256 };
}

/** An MCP tool's answer, asked in-process of the tool itself, as the server asks it. */
async function askTool(cwd: string, name: string, input: Record<string, unknown> = {}): Promise<Record<string, unknown>> {
  const tool = TOOLS.find((t) => t.name === name)!;
  return tool.answer(input, { config: () => resolveConfig({ flags: {}, env: {}, cwd }), limits: { maxRows: 100, maxBytes: 1_000_000, maxSeconds: 30 } });
}

function historyIds(stdout: string): string[] {
  return (JSON.parse(stdout) as { invocation_id: string }[]).map((row) => row.invocation_id);
}

describe('an unreadable store file is moved aside and derived again', () => {
  for (const [label, damage] of [
    ['empty', (): Buffer => Buffer.alloc(0)],
    ['truncated', (bytes: Buffer): Buffer => bytes.subarray(0, 100)],
    ['random bytes', (bytes: Buffer): Buffer => Buffer.from(bytes.map((_, i) => (i * 7919) % 251))],
  ] as const) {
    it(`${label}: reading commands and rebuild answer from the archive and name where the old file went`, async () => {
      const project = await projectWithHistory();
      writeFileSync(project.store, damage(readFileSync(project.store)));
      const history = await runCli(['history', '--json'], { cwd: project.dir });
      expect(history.exitCode, history.stderr).toBe(0);
      expect(historyIds(history.stdout)).toEqual([...IDS].reverse());
      const aside = /moved aside to (\S+store\.duckdb\.unreadable-\S+) /.exec(history.stderr)?.[1];
      expect(aside && existsSync(aside), history.stderr).toBe(true);

      writeFileSync(project.store, damage(readFileSync(project.store)));
      const rebuild = await runCli(['rebuild', '--json'], { cwd: project.dir });
      expect(rebuild.exitCode, rebuild.stderr).toBe(0);
      expect(JSON.parse(rebuild.stdout)).toMatchObject({ invocations: 3, problems: [], movedAside: { from: project.store } });
    }, 60_000);
  }
});

describe('one damaged object or record leaves the rest of the history working', () => {
  const damages: [string, (p: Awaited<ReturnType<typeof projectWithHistory>>) => void][] = [
    [
      'a chunk of the newest run results',
      (p) => writeFileSync(objectFile(p.archive, 'chunks', recordOf(p.archive, IDS[2]!, 'run_results').sha256), 'not gzip'),
    ],
    [
      'the file index of the newest run results',
      (p) => writeFileSync(objectFile(p.archive, 'files', recordOf(p.archive, IDS[2]!, 'run_results').sha256), 'not gzip'),
    ],
    ['the newest run results record', (p) => writeFileSync(recordOf(p.archive, IDS[2]!, 'run_results').file, '{"kind": "artifact", "trunc')],
  ];
  for (const [label, damage] of damages) {
    it(`${label}: rebuild, history, query and info serve the rest, list the damage and exit 1; state finds the newest intact success`, async () => {
      const project = await projectWithHistory();
      damage(project);
      rmSync(project.store);
      const rebuild = await runCli(['rebuild', '--json'], { cwd: project.dir });
      expect(rebuild.exitCode, rebuild.stderr).toBe(1);
      expect(JSON.parse(rebuild.stdout)).toMatchObject({
        invocations: 3,
        problems: [{ invocation_id: IDS[2], artifact_type: 'run_results', kind: 'damaged' }],
      });

      const history = await runCli(['history', '--json'], { cwd: project.dir });
      expect(history.exitCode).toBe(1);
      expect(historyIds(history.stdout)).toEqual([...IDS].reverse());
      expect(history.stderr).toContain(`the archive is damaged; left out of this answer: ${IDS[2]}`);
      const query = await runCli(['query', '--format', 'csv', 'select invocation_id from invocation where status_counts is not null order by 1'], {
        cwd: project.dir,
      });
      expect({ exitCode: query.exitCode, stdout: query.stdout }).toEqual({ exitCode: 1, stdout: `invocation_id\n${IDS[0]}\n${IDS[1]}\n` });
      const info = await runCli(['info', '--json'], { cwd: project.dir });
      expect(info.exitCode).toBe(1);
      expect((JSON.parse(info.stdout) as { store: { damaged: string[] } }).store.damaged).toEqual([IDS[2]]);
      // An agent sees no stderr: the MCP tools carry the warning inside the answer.
      const runs = await askTool(project.dir, 'list_runs');
      expect(runs.warnings).toEqual([expect.stringContaining(`the archive is damaged; left out of this answer: ${IDS[2]}`)]);
      expect((await askTool(project.dir, 'query', { sql: 'select 1 as one' })).warnings).toEqual(runs.warnings);

      const state = await runCli(['state', '--last-success', '--json'], { cwd: project.dir });
      expect(state.exitCode, state.stderr).toBe(0);
      expect(JSON.parse(state.stdout)).toMatchObject({ invocation_id: IDS[1] });
    }, 60_000);
  }

  it('a damaged capture record: rebuild re-derives every invocation, names the record and exits 1', async () => {
    const project = await projectWithHistory();
    const captures = path.join(project.archive, 'records', 'captures');
    const damaged = readdirSync(captures).sort()[0]!;
    writeFileSync(path.join(captures, damaged), '{');
    rmSync(project.store);
    const rebuild = await runCli(['rebuild', '--json'], { cwd: project.dir });
    expect(rebuild.exitCode, rebuild.stderr).toBe(1);
    expect(JSON.parse(rebuild.stdout)).toMatchObject({
      invocations: 3,
      captures: 2,
      problems: [{ invocation_id: null, kind: 'damaged', archive_key: `records/captures/${damaged}` }],
    });
    const history = await runCli(['history', '--json'], { cwd: project.dir });
    expect(history.exitCode).toBe(1);
    expect(historyIds(history.stdout)).toEqual([...IDS].reverse());
  }, 60_000);
});

describe('repair', () => {
  it('capturing the intact original again restores its missing chunks, and the store takes it back in', async () => {
    const project = await projectWithHistory();
    const manifest = recordOf(project.archive, IDS[2]!, 'manifest');
    expect(sha256Of(path.join(project.target, 'manifest.json'))).toBe(manifest.sha256);
    rmSync(path.join(project.archive, 'chunks'), { recursive: true });
    expect((await runCli(['history'], { cwd: project.dir })).exitCode).toBe(0); // the store already had it
    rmSync(project.store);
    expect((await runCli(['history'], { cwd: project.dir })).exitCode).toBe(1);

    writeSyntheticTarget({ invocationId: IDS[2]!, generatedAt: '2026-03-03T10:00:00.000000Z' }, project.target); // the same bytes, a new file
    const capture = await runCli(['capture', '--json'], { cwd: project.dir });
    expect(capture.exitCode, capture.stderr).toBe(0);
    const statuses = (JSON.parse(capture.stdout) as { artifacts: { artifact: string; status: string }[] }).artifacts.filter((a) => a.status !== 'absent');
    expect(statuses).toEqual(
      [
        { artifact: 'manifest', status: 'repaired' },
        { artifact: 'run_results', status: 'repaired' },
      ].map((s) => expect.objectContaining(s)),
    );
    const restore = path.join(project.dir, 'restored');
    expect((await runCli(['state', '--invocation', IDS[2]!, '--out', restore], { cwd: project.dir })).exitCode).toBe(0);
    expect(sha256Of(path.join(restore, 'manifest.json'))).toBe(manifest.sha256);
    const history = await runCli(['history', '--json', '--status', 'ok'], { cwd: project.dir });
    expect(history.exitCode, history.stderr).toBe(1); // the two older invocations are still lost
    expect(historyIds(history.stdout)).toEqual([IDS[2]]);
  }, 60_000);

  it('verify --repair re-writes from intact copies in target/ and says what remains lost', async () => {
    const project = await projectWithHistory();
    const newest = recordOf(project.archive, IDS[2]!, 'run_results');
    const older = recordOf(project.archive, IDS[0]!, 'run_results');
    rmSync(objectFile(project.archive, 'files', newest.sha256));
    rmSync(objectFile(project.archive, 'files', older.sha256));
    const repair = await runCli(['verify', '--repair', '--json'], { cwd: project.dir });
    expect(repair.exitCode).toBe(4);
    const report = JSON.parse(repair.stdout) as { restored: { files: number }; problems: { kind: string; key: string }[] };
    expect(report.restored.files).toBe(1);
    expect(report.problems).toEqual([
      { kind: 'dangling-record', key: `records/invocations/${IDS[0]}/run_results-${older.sha256}.json`, message: expect.any(String) },
    ]);
    expect(existsSync(objectFile(project.archive, 'files', newest.sha256))).toBe(true);
  }, 60_000);
});

describe('a missing FORMAT beside existing objects', () => {
  it('is damage to verify (exit 4), and capture writes no new FORMAT over the archive', async () => {
    const project = await projectWithHistory();
    rmSync(path.join(project.archive, 'FORMAT'));
    const verify = await runCli(['verify'], { cwd: project.dir });
    expect(verify.exitCode).toBe(4);
    expect(verify.stdout).toContain('format\tFORMAT');
    writeSyntheticTarget({ invocationId: '00000004-0000-4000-8000-00000000d0c4', generatedAt: '2026-03-04T10:00:00.000000Z' }, project.target);
    const capture = await runCli(['capture'], { cwd: project.dir });
    expect(capture.exitCode).toBe(4);
    expect(capture.stderr).toContain('its FORMAT file is missing');
    expect(existsSync(path.join(project.archive, 'FORMAT'))).toBe(false);
    expect(listArtifactRecordFiles(project.archive).some((r) => r.invocation.startsWith('00000004'))).toBe(false);
    expect((await runCli(['verify', '--repair'], { cwd: project.dir })).exitCode).toBe(0);
    expect(readFileSync(path.join(project.archive, 'FORMAT'), 'utf8')).toBe('dbtattic-archive 2\n');
  }, 60_000);
});

const DUCKDB_API = pathToFileURL(createRequire(import.meta.url).resolve('@duckdb/node-api')).href;
const READER = `
const { DuckDBInstance } = await import(process.argv[1]);
const instance = await DuckDBInstance.create(process.argv[2], { access_mode: 'READ_ONLY' });
const connection = await instance.connect();
await connection.run('SELECT count(*) FROM invocation');
console.log('reading');
setInterval(() => { void instance; void connection; }, 60_000);
`;

describe('readers do not block each other', () => {
  let reader: WatchedProcess | undefined;
  afterEach(async () => {
    reader?.child.kill();
    await reader?.ended;
  });

  it('while another process reads the store, history answers at once and says what it could not take in', async () => {
    const project = await projectWithHistory();
    reader = startWatched(process.execPath, ['--input-type=module', '-e', READER, DUCKDB_API, project.store]);
    await reader.waitForOutput('reading');
    const history = await runCli(['history', '--json'], { cwd: project.dir });
    expect(history.exitCode, history.stderr).toBe(0);
    expect(historyIds(history.stdout)).toEqual([...IDS].reverse());

    writeSyntheticTarget({ invocationId: '00000004-0000-4000-8000-00000000d0c4', generatedAt: '2026-03-04T10:00:00.000000Z' }, project.target);
    expect((await runCli(['capture', '--quiet'], { cwd: project.dir })).exitCode).toBe(0);
    const behind = await runCli(['history', '--json'], { cwd: project.dir });
    expect(behind.exitCode).toBe(0);
    expect(historyIds(behind.stdout)).toEqual([...IDS].reverse());
    expect(behind.stderr).toContain('other processes are reading the store, so it was read as it is: 3 archive record(s) are not in it yet');
    expect(reader.child.exitCode).toBeNull();
  }, 60_000);
});

describe('temp files left by killed writers', () => {
  it('are removed by the next capture', async () => {
    const project = await projectWithHistory();
    const dead = startWatched(process.execPath, ['-e', '']);
    const pid = dead.child.pid!;
    await dead.ended;
    const hostTag = (await import('node:crypto'))
      .createHash('sha256')
      .update((await import('node:os')).hostname())
      .digest('hex')
      .slice(0, 8);
    const tempDir = path.join(project.archive, '.tmp-files');
    const archiveTemp = path.join(tempDir, `.tmp-${hostTag}-${pid}-0123456789abcdef`);
    writeFileSync(archiveTemp, 'half a chunk');
    const cacheTemp = path.join(project.dir, '.dbtattic', 'capture-cache.json.0123456789ab.tmp');
    writeFileSync(cacheTemp, '{"format":1,');
    const { utimesSync } = await import('node:fs');
    const hourAgo = new Date(Date.now() - 3_600_000);
    utimesSync(cacheTemp, hourAgo, hourAgo);
    writeSyntheticTarget({ invocationId: '00000004-0000-4000-8000-00000000d0c4', generatedAt: '2026-03-04T10:00:00.000000Z' }, project.target);
    expect((await runCli(['capture', '--quiet'], { cwd: project.dir })).exitCode).toBe(0);
    expect(existsSync(archiveTemp)).toBe(false);
    expect(existsSync(cacheTemp)).toBe(false);
    expect((await runCli(['verify'], { cwd: project.dir })).exitCode).toBe(0);
  }, 60_000);
});

describe('query streams its result', () => {
  it('prints a result far larger than its heap, row chunk by row chunk', async () => {
    const project = await projectWithHistory();
    // 1.5 M rows held whole take several times the 40 MB heap allowed here; streamed they never do.
    const query = await runCli(['query', '--format', 'csv', 'select range as n from range(1500000)'], {
      cwd: project.dir,
      env: { NODE_OPTIONS: '--max-old-space-size=40' },
    });
    expect(query.exitCode, query.stderr.slice(0, 300)).toBe(0);
    const lines = query.stdout.trimEnd().split('\n');
    expect([lines.length, lines[0], lines[1], lines.at(-1)]).toEqual([1_500_001, 'n', '0', '1499999']);
  }, 120_000);

  it('json output streamed is the same document as one built whole', async () => {
    const project = await projectWithHistory();
    const query = await runCli(['query', '--json', 'select invocation_id, status_counts from invocation order by 1'], { cwd: project.dir });
    expect(query.exitCode).toBe(0);
    expect(query.stdout).toBe(
      `${JSON.stringify(
        IDS.map((id) => ({ invocation_id: id, status_counts: { success: 1 } })),
        null,
        2,
      )}\n`,
    );
    const empty = await runCli(['query', '--json', 'select 1 as n where false'], { cwd: project.dir });
    expect(empty.stdout).toBe('[]\n');
  }, 60_000);

  it('is stopped by --timeout with a message that names the flag, and has a default', async () => {
    const project = await projectWithHistory();
    const query = await runCli(['query', '--timeout', '1', 'select count(*) from range(100000000) a, range(100000) b'], { cwd: project.dir });
    expect({ exitCode: query.exitCode, stderr: query.stderr }).toEqual({
      exitCode: 1,
      stderr: 'error: The query was stopped after 1 s. Raise --timeout (seconds; 0: none), or narrow the query.\n',
    });
    const help = await runCli(['query', '--help'], { cwd: project.dir });
    expect(help.stdout).toMatch(/--timeout <seconds>\s+stop the query after this long \(0: never\) \(default: 300\)/);
  }, 60_000);
});

/** A tmpfs of `size` mounted on a new directory, when this process may mount (root); else null. */
function mountTmpfs(size: string): string | null {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'attic-tmpfs-'));
  const mounted = spawnSync('mount', ['-t', 'tmpfs', '-o', `size=${size}`, 'tmpfs', dir]).status === 0;
  if (!mounted) {
    rmSync(dir, { recursive: true, force: true });
    return null;
  }
  cleanups.push(() => {
    spawnSync('umount', ['-l', dir]);
    rmSync(dir, { recursive: true, force: true });
  });
  return dir;
}

const CAN_MOUNT = process.getuid?.() === 0 && spawnSync('mount', ['--version']).status === 0;

describe.skipIf(!CAN_MOUNT)('full and read-only disks (a tmpfs mounted by the test; needs root)', () => {
  it('a full disk during capture keeps what fit, names the path and the fix, and never exits 70', async () => {
    const mount = mountTmpfs('1m');
    if (!mount) return expect.fail('mount failed although root');
    const project = makeProject();
    cleanups.push(() => rmSync(project.dir, { recursive: true, force: true }));
    const id = '00000009-0000-4000-8000-00000000d0c9';
    writeSyntheticTarget({ invocationId: id }, project.target);
    // A manifest that cannot fit: 2 MB of random text does not compress.
    const manifest = JSON.parse(readFileSync(path.join(project.target, 'manifest.json'), 'utf8')) as { nodes: Record<string, { raw_code: string }> };
    Object.values(manifest.nodes)[0]!.raw_code = randomBytes(1_500_000).toString('base64');
    writeFileSync(path.join(project.target, 'manifest.json'), JSON.stringify(manifest));
    const store = path.join(mount, 'store');
    const capture = await runCli(['--store', store, 'capture', '--json'], { cwd: project.dir });
    const noSpace = `No space left on the disk of the archive ${path.join(store, 'archive')}. Free space there and run the command again; what was written before is kept.`;
    // Either the capture record still fit (the manifest is an error row, exit 1) or the disk was
    // too full even for it (exit 7 with the same words); never an internal error.
    const output = JSON.parse(capture.stdout) as {
      artifacts?: { artifact: string; status: string; error?: string }[];
      error?: { code: string; message: string };
    };
    if (capture.exitCode === 1) expect(output.artifacts!.find((a) => a.artifact === 'manifest')).toMatchObject({ status: 'error', error: noSpace });
    else
      expect({ exitCode: capture.exitCode, error: output.error }).toEqual({
        exitCode: 7,
        error: { code: 'no-space', message: noSpace, path: path.join(store, 'archive') },
      });
    // The small artifact was written first and fit: it is archived, whole.
    const archived = listArtifactRecordFiles(path.join(store, 'archive')).map((r) => `${r.invocation}/${r.artifact}`);
    expect(archived).toEqual([`${id}/run_results`]);
    expect(readdirSync(path.join(store, 'archive', '.tmp-files'))).toEqual([]);
    const verify = await runCli(['--store', store, 'verify'], { cwd: project.dir });
    expect(verify.exitCode, verify.stdout).toBe(0);
  }, 60_000);

  it('a full disk under state --out: exit 7 naming the directory, and no temp file left for dbt to read', async () => {
    const project = makeProject();
    cleanups.push(() => rmSync(project.dir, { recursive: true, force: true }));
    writeSyntheticTarget({ invocationId: '0000000a-0000-4000-8000-00000000d0ca' }, project.target);
    const manifest = JSON.parse(readFileSync(path.join(project.target, 'manifest.json'), 'utf8')) as { nodes: Record<string, { raw_code: string }> };
    Object.values(manifest.nodes)[0]!.raw_code = randomBytes(1_500_000).toString('base64');
    writeFileSync(path.join(project.target, 'manifest.json'), JSON.stringify(manifest));
    expect((await runCli(['capture', '--quiet'], { cwd: project.dir })).exitCode).toBe(0);
    const mount = mountTmpfs('1m');
    if (!mount) return expect.fail('mount failed although root');
    const out = path.join(mount, 'state');
    const state = await runCli(['state', '--out', out, '--json'], { cwd: project.dir });
    expect({ exitCode: state.exitCode, error: (JSON.parse(state.stdout) as { error: unknown }).error }).toEqual({
      exitCode: 7,
      error: {
        code: 'no-space',
        message: `No space left on the disk of the state directory ${out}. Free space there and run the command again; what was written before is kept.`,
        path: path.join(out, 'manifest.json'),
      },
    });
    expect(readdirSync(out).filter((name) => name.endsWith('.tmp'))).toEqual([]);
  }, 60_000);

  it('a read-only store: reading commands answer from an up-to-date store; capture says what to do', async () => {
    const project = await projectWithHistory();
    const mount = mountTmpfs('64m');
    if (!mount) return expect.fail('mount failed although root');
    const store = path.join(mount, 'store');
    cpSync(path.join(project.dir, '.dbtattic'), store, { recursive: true });
    expect(spawnSync('mount', ['-o', 'remount,ro', mount]).status).toBe(0);
    const history = await runCli(['--store', store, 'history', '--json'], { cwd: project.dir });
    expect(history.exitCode, history.stderr).toBe(0);
    expect(historyIds(history.stdout)).toEqual([...IDS].reverse());
    expect(history.stderr).toBe('');
    const query = await runCli(['--store', store, 'query', '--format', 'csv', 'select count(*) as n from invocation'], { cwd: project.dir });
    expect({ exitCode: query.exitCode, stdout: query.stdout }).toEqual({ exitCode: 0, stdout: 'n\n3\n' });
    writeSyntheticTarget({ invocationId: '00000004-0000-4000-8000-00000000d0c4', generatedAt: '2026-03-04T10:00:00.000000Z' }, project.target);
    const capture = await runCli(['--store', store, 'capture'], { cwd: project.dir });
    expect(capture.exitCode).not.toBe(70);
    expect(capture.stderr).toContain(
      `The archive ${path.join(store, 'archive')} cannot be written (EROFS). Give dbtattic write access to it, or point --store at a writable directory.`,
    );
  }, 60_000);
});
