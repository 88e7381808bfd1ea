import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sha256Of } from '../helpers/archive-files.js';
import { makeProject, mask, putTarget, runCli } from '../helpers/cli.js';
import { CORPUS_DIR, hasCorpus } from '../helpers/corpus.js';
import { writeSyntheticTarget } from '../helpers/synthetic-artifacts.js';

/**
 * The expected choice is computed here from the artifact files themselves, not from dbtattic's
 * code: group files by metadata.invocation_id (the newest generated_at wins within one), keep
 * invocations with a manifest and run results, and take the newest success.
 */
const STATE_FILES = ['manifest', 'run_results', 'sources'] as const;
const FAILED = new Set(['error', 'fail', 'runtime error', 'partial success']);

interface Invocation {
  id: string;
  /** artifact → the file that invocation's newest copy of it came from. */
  files: Partial<Record<(typeof STATE_FILES)[number], string>>;
}

interface Doc {
  metadata: { invocation_id: string; generated_at: string };
  results?: { status: unknown }[];
  args?: { which?: string; target?: string };
}
const readDoc = (file: string): Doc => JSON.parse(readFileSync(file, 'utf8')) as Doc;

function groupInvocations(stepDirs: string[]): Map<string, Invocation> {
  const byId = new Map<string, Invocation>();
  for (const dir of stepDirs) {
    for (const artifact of STATE_FILES) {
      const file = path.join(dir, `${artifact}.json`);
      if (!existsSync(file)) continue;
      const { invocation_id: id, generated_at: at } = readDoc(file).metadata;
      const inv = byId.get(id) ?? { id, files: {} };
      const held = inv.files[artifact];
      if (!held || readDoc(held).metadata.generated_at < at) inv.files[artifact] = file;
      byId.set(id, inv);
    }
  }
  return byId;
}

function expectedSuccess(invocations: Map<string, Invocation>, commands: string[], target?: string): Invocation | undefined {
  const candidates = [...invocations.values()].filter((inv) => {
    if (!inv.files.manifest || !inv.files.run_results) return false;
    const doc = readDoc(inv.files.run_results);
    const statuses = (doc.results ?? []).map((r) => String(r.status).toLowerCase());
    if (statuses.length === 0 || statuses.some((s) => FAILED.has(s))) return false;
    return commands.includes(doc.args?.which ?? '') && (target === undefined || doc.args?.target === target);
  });
  const finishedAt = (inv: Invocation): string => readDoc(inv.files.run_results!).metadata.generated_at;
  return candidates.sort((a, b) => finishedAt(b).localeCompare(finishedAt(a)))[0];
}

/** Captures each step's files, put into target/ in order as dbt would have left them. */
async function captureHistory(stepDirs: string[]): Promise<{ dir: string; target: string }> {
  const project = makeProject();
  for (const step of stepDirs) {
    const names = readdirSync(step).filter((n) => n.endsWith('.json'));
    // Corpus files are read-only and copies keep that mode: replace them rather than write over them.
    for (const name of names) rmSync(path.join(project.target, name), { force: true });
    putTarget(project.target, Object.fromEntries(names.map((n) => [n, path.join(step, n)])));
    const result = await runCli(['capture', '--quiet'], { cwd: project.dir });
    expect(result, step).toMatchObject({ exitCode: 0, stderr: '' });
  }
  return project;
}

/** The state dir holds exactly the invocation's state files, byte for byte. */
function expectStateDir(dir: string, inv: Invocation): void {
  const expected = STATE_FILES.filter((a) => inv.files[a]).map((a) => `${a}.json`);
  // Besides the artifacts, only the mark that dbtattic made the directory (README: state --out).
  expect(
    readdirSync(dir)
      .filter((name) => name !== '.dbtattic-state')
      .sort(),
  ).toEqual(expected.sort());
  for (const artifact of STATE_FILES) {
    const source = inv.files[artifact];
    if (source) expect(sha256Of(path.join(dir, `${artifact}.json`)), artifact).toBe(sha256Of(source));
  }
}

const SEQUENCES = ['learn-dbt-nigel-snowflake-1.0-to-1.3/target-seq', 'rembo-dbt-prod/target-seq'];

describe.skipIf(!hasCorpus)('state on a history captured from real sequences', () => {
  const steps = hasCorpus
    ? SEQUENCES.flatMap((seq) =>
        readdirSync(path.join(CORPUS_DIR, seq))
          .sort()
          .map((d) => path.join(CORPUS_DIR, seq, d)),
      )
    : [];
  let project: { dir: string; target: string };
  let invocations: Map<string, Invocation>;
  const store = (): string => path.join(project.dir, '.dbtattic');
  const state = (args: string[]) => runCli(['state', ...args], { cwd: project.dir });

  beforeAll(async () => {
    invocations = groupInvocations(steps);
    project = await captureHistory(steps);
  }, 120_000);
  afterAll(() => rmSync(project.dir, { recursive: true, force: true }));

  it('--last-success prints only the path of the newest successful build or run, holding its exact bytes', async () => {
    const expected = expectedSuccess(invocations, ['build', 'run'])!;
    expect(expected).toBeDefined();
    const result = await state(['--last-success']);
    expect(result).toEqual({ exitCode: 0, stdout: `${path.join(store(), 'state', expected.id)}\n`, stderr: '' });
    expectStateDir(result.stdout.trim(), expected);
    expect(await state([])).toEqual(result);
  });

  it.each([['test'], ['run'], ['build,run,test']])('--command %s picks the newest success of those commands', async (commands) => {
    const expected = expectedSuccess(invocations, commands.split(','))!;
    expect(expected).toBeDefined();
    const result = await state(['--command', commands]);
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toBe(`${path.join(store(), 'state', expected.id)}\n`);
    expectStateDir(result.stdout.trim(), expected);
  });

  it('--target keeps only invocations run against that target', async () => {
    const expected = expectedSuccess(invocations, ['build', 'run'], 'dev')!;
    const result = await state(['--target', 'dev']);
    expect(result.stdout).toBe(`${path.join(store(), 'state', expected.id)}\n`);
    // Every `run` in these sequences is from a dbt that did not record its target.
    expect(expectedSuccess(invocations, ['run'], 'dev')).toBeUndefined();
    const none = await state(['--target', 'dev', '--command', 'run']);
    expect(none.exitCode).toBe(3);
    expect(none.stdout).toBe('');
    expect(none.stderr).toMatch(/^error: No successful invocation in the archive \(command run, target dev\)/);
  });

  it('--invocation takes a unique prefix, and writes only the artifacts that invocation has', async () => {
    const ids = [...invocations.values()].filter((inv) => inv.files.manifest).map((inv) => inv.id);
    const partial = [...invocations.values()].find((inv) => inv.files.manifest && inv.files.sources && !inv.files.run_results)!;
    expect(partial).toBeDefined();
    const prefix = shortestUniquePrefix(partial.id, ids);
    const out = path.join(project.dir, 'elsewhere');
    // A state directory of an invocation with run results first: its run_results.json is stale for the next.
    const earlier = [...invocations.values()].find((inv) => inv.files.manifest && inv.files.run_results)!;
    expect((await state(['--invocation', shortestUniquePrefix(earlier.id, ids), '--out', 'elsewhere'])).exitCode).toBe(0);
    expect(existsSync(path.join(out, 'run_results.json'))).toBe(true);
    const result = await state(['--invocation', prefix, '--out', 'elsewhere']);
    expect(result).toEqual({ exitCode: 0, stdout: `${out}\n`, stderr: '' });
    expectStateDir(out, partial);
  });

  it('refuses an ambiguous prefix, listing the candidates, with exit 2', async () => {
    const ids = [...invocations.values()]
      .filter((inv) => inv.files.manifest)
      .map((inv) => inv.id)
      .sort();
    const shared = ids.find((id, i) => ids.some((other, j) => j !== i && other[0] === id[0]))!;
    const candidates = ids.filter((id) => id[0] === shared[0]);
    const result = await state(['--invocation', shared[0]!]);
    expect(result.exitCode).toBe(2);
    expect(result.stdout).toBe('');
    for (const id of candidates) expect(result.stderr).toContain(id);
    const json = await state(['--invocation', shared[0]!, '--json']);
    expect(json.exitCode).toBe(2);
    expect(JSON.parse(json.stdout)).toMatchObject({ error: { code: 'ambiguous-id', candidates } });
  });

  it('prints nothing on stdout and exits 3 when nothing matches', async () => {
    const result = await state(['--invocation', 'no-such-invocation']);
    expect(result.exitCode).toBe(3);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain("No invocation with a manifest matches 'no-such-invocation'");
    const none = await state(['--command', 'no-such-command']);
    expect(none).toMatchObject({ exitCode: 3, stdout: '' });
  });

  it('--json describes the choice', async () => {
    const expected = expectedSuccess(invocations, ['test'])!;
    const result = await state(['--command', 'test', '--json']);
    expect(result.exitCode).toBe(0);
    const doc = readDoc(expected.files.run_results!);
    const parsed = JSON.parse(result.stdout) as { generated_at: string };
    expect(parsed).toMatchObject({
      path: path.join(store(), 'state', expected.id),
      invocation_id: expected.id,
      generated_at: expect.any(String),
      command: 'test',
      target: doc.args?.target ?? null,
      results: statusCounts(doc),
      files: STATE_FILES.filter((a) => expected.files[a]).map((a) => `${a}.json`),
    });
    // dbt's time, perhaps without its trailing 'Z'.
    expect(doc.metadata.generated_at.startsWith(parsed.generated_at)).toBe(true);
  });
});

function statusCounts(doc: Doc): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const r of doc.results ?? []) counts[String(r.status).toLowerCase()] = (counts[String(r.status).toLowerCase()] ?? 0) + 1;
  return counts;
}

function shortestUniquePrefix(id: string, ids: string[]): string {
  for (let n = 1; n <= id.length; n++) {
    const prefix = id.slice(0, n);
    if (ids.filter((other) => other.startsWith(prefix)).length === 1) return prefix;
  }
  return id;
}

describe('state on a synthetic history (statuses and targets the corpus lacks)', () => {
  /** Oldest first; only `good-dev` and `good-prod` are successes of build or run. */
  const history = [
    { invocationId: 'a0000000-good-dev', command: 'build', target: 'dev', statuses: ['success', 'pass', 'warn', 'skipped'] },
    { invocationId: 'a1000000-good-prod', command: 'run', target: 'prod', statuses: ['success', 'no-op'] },
    { invocationId: 'b0000000-partial', command: 'build', target: 'prod', statuses: ['success', 'partial success'] },
    { invocationId: 'b1000000-runtime', command: 'build', target: 'dev', statuses: ['runtime error'] },
    { invocationId: 'b2000000-failed', command: 'build', target: 'dev', statuses: ['pass', 'fail'] },
    { invocationId: 'b3000000-empty', command: 'build', target: 'dev', statuses: [] },
    { invocationId: 'b4000000-compile', command: 'compile', target: 'dev', statuses: ['success'] },
  ];
  let project: { dir: string; target: string };

  beforeAll(async () => {
    project = makeProject();
    for (const [i, inv] of history.entries()) {
      writeSyntheticTarget({ ...inv, generatedAt: `2026-01-0${i + 1}T00:00:00.000000Z` }, project.target);
      expect(await runCli(['capture', '--quiet'], { cwd: project.dir }), inv.invocationId).toMatchObject({ exitCode: 0, stderr: '' });
    }
  }, 60_000);
  afterAll(() => rmSync(project.dir, { recursive: true, force: true }));

  it.each([
    [[], 'a1000000-good-prod'],
    [['--target', 'dev'], 'a0000000-good-dev'],
    [['--command', 'compile'], 'b4000000-compile'],
  ])('state %j chooses %s', async (args, id) => {
    const result = await runCli(['state', ...args], { cwd: project.dir });
    expect(mask(result.stdout, [project.dir])).toBe(`<DIR>/.dbtattic/state/${id}\n`);
  });

  it('finds nothing for a target no invocation ran against', async () => {
    const result = await runCli(['state', '--target', 'staging'], { cwd: project.dir });
    expect(result).toMatchObject({ exitCode: 3, stdout: '' });
  });
});
