import { existsSync, readdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { metadataOf, readJson, type Json } from '../helpers/artifact-facts.js';
import { makeProject, runCli, runCliOnTerminal, type CliResult } from '../helpers/cli.js';
import { CORPUS_DIR, hasCorpus } from '../helpers/corpus.js';
import { readPrintedTable, type PrintedRow } from '../helpers/printed-table.js';

/**
 * Every table the CLI prints, on terminals 60, 80, 120 and 200 columns wide, for a real
 * history (rembo-dbt-prod: 12 target dirs, 16 invocations, a build with two failures whose
 * messages run over several lines). No line is wider than the terminal; an invocation id is
 * printed as its unique prefix (README: 8 characters at least) and `inspect` takes it back;
 * ids, node ids and dbt's messages are whole, wrapped, never cut. Expected values are read
 * from the artifacts.
 */
const SEQUENCE = path.join(CORPUS_DIR, 'rembo-dbt-prod/target-seq');
const WIDTHS = [60, 80, 120, 200];
const ARTIFACTS = ['manifest.json', 'run_results.json', 'sources.json', 'catalog.json'];

interface Failure {
  invocationId: string;
  uniqueId: string;
  message: string;
}

const dirs = hasCorpus
  ? readdirSync(SEQUENCE)
      .sort()
      .map((name) => path.join(SEQUENCE, name))
  : [];
const idsOf = (dir: string): string[] =>
  ARTIFACTS.filter((f) => existsSync(path.join(dir, f))).map((f) => String(metadataOf(readJson(path.join(dir, f))).invocation_id));
const ids = [...new Set(dirs.flatMap(idsOf))];

/** README's rule, applied here to the artifacts' ids: the shortest prefix of 8 or more that no other id starts with. */
function uniquePrefix(id: string): string {
  for (let n = 8; n < id.length; n++) if (ids.every((other) => other === id || !other.startsWith(id.slice(0, n)))) return id.slice(0, n);
  return id;
}

function failuresOf(dir: string): Failure[] {
  if (!existsSync(path.join(dir, 'run_results.json'))) return [];
  const results = readJson(path.join(dir, 'run_results.json'));
  return ((results.results ?? []) as Json[])
    .filter((r) => ['error', 'fail'].includes(String(r.status)))
    .map((r) => ({ invocationId: String(metadataOf(results).invocation_id), uniqueId: String(r.unique_id), message: String(r.message) }));
}

const bare = (text: string): string => text.replace(/\s+/g, '');
const failed = dirs.flatMap(failuresOf);
const lastDir = dirs.at(-1) ?? '';

let project = '';
const cli = (args: string[], columns: number): Promise<CliResult> => runCliOnTerminal(['--target-path', lastDir, ...args], { cwd: project, columns });

beforeAll(async () => {
  if (!hasCorpus) return;
  project = makeProject().dir;
  for (const dir of dirs)
    expect(await runCli(['--target-path', dir, 'capture', '--quiet', '--branch', 'prod'], { cwd: project }), dir).toMatchObject({ exitCode: 0 });
}, 120_000);
afterAll(() => project && rmSync(project, { recursive: true, force: true }));

/** Prints `args` at every width; checks the lines fit and nothing was cut; returns what each width showed. */
async function atEveryWidth(args: string[], check: (shown: string, columns: number) => Promise<void> | void = () => undefined): Promise<void> {
  for (const columns of WIDTHS) {
    const result = await cli(args, columns);
    expect(result.exitCode, `${args.join(' ')} at ${columns}: ${result.stderr}`).toBe(0);
    for (const line of [...result.stdout.split('\n'), ...result.stderr.split('\n')]) {
      expect([...line].length, `${args.join(' ')} at ${columns} columns:\n${line}`).toBeLessThanOrEqual(columns);
    }
    expect(result.stdout, `${args.join(' ')} at ${columns}`).not.toContain('…');
    await check(result.stdout, columns);
  }
}

/** Each printed invocation id is the id's unique prefix, and inspect takes it back to that id. */
async function expectTypedBack(rows: PrintedRow[], head: string): Promise<void> {
  for (const row of rows) {
    const printed = row[head]!;
    const id = ids.find((candidate) => candidate.startsWith(printed));
    expect(id, `${head} ${printed}`).toBeDefined();
    expect(printed).toBe(uniquePrefix(id!));
    const back = await runCli(['inspect', printed, '--json'], { cwd: project });
    expect(back.exitCode, back.stderr).toBe(0);
    expect((JSON.parse(back.stdout) as { invocation: { invocation_id: string } }).invocation.invocation_id).toBe(id);
  }
}

describe.skipIf(!hasCorpus)('every table on a terminal 60, 80, 120 and 200 columns wide (rembo-dbt-prod)', () => {
  it('history: every invocation, by the id it can be typed back by', async () => {
    expect(ids.length).toBe(16);
    const heads = ['started', 'invocation', 'command', 'target', 'results', 'took', 'exit', 'git', 'branch'];
    await atEveryWidth(['history'], async (shown, columns) => {
      const rows = readPrintedTable(shown, heads, 'invocation');
      expect(rows.map((r) => r.invocation).sort(), `at ${columns}`).toEqual(ids.map(uniquePrefix).sort());
      if (columns === 80) await expectTypedBack(rows, 'invocation');
    });
  });

  it("history --failed: each failed node and dbt's message whole, wrapped", async () => {
    expect(failed.length).toBe(2);
    await atEveryWidth(['history', '--failed'], (shown, columns) => {
      const rows = readPrintedTable(shown, ['started', 'invocation', 'command', 'node', 'status', 'message'], 'invocation');
      const seen = rows.map((r) => ({ invocation: r.invocation, node: bare(r.node!), message: bare(r.message!) }));
      const expected = failed.map((f) => ({ invocation: uniquePrefix(f.invocationId), node: f.uniqueId, message: bare(f.message) }));
      expect(
        seen.sort((a, b) => a.node.localeCompare(b.node)),
        `at ${columns}`,
      ).toEqual(expected.sort((a, b) => a.node.localeCompare(b.node)));
    });
  });

  it('history --node, plan, explain, capture --dry-run, forget --dry-run, branch list', async () => {
    const failedNode = failed[0]!.uniqueId;
    await atEveryWidth(['history', '--node', failedNode], async (shown, columns) => {
      const rows = readPrintedTable(shown, ['started', 'invocation', 'command', 'target', 'node', 'status', 'took', 'branch'], 'invocation');
      expect(rows.length).toBeGreaterThan(0);
      // The node asked for is the first column left out on a narrow terminal.
      for (const row of rows) if (columns >= 120 || row.node !== undefined) expect(bare(row.node!)).toBe(failedNode);
      await expectTypedBack(rows, 'invocation');
    });
    await atEveryWidth(['plan', '--no-record']);
    await atEveryWidth(['explain', failedNode.split('.').at(-1)!]);
    await atEveryWidth(['capture', '--dry-run'], (shown) => {
      const rows = readPrintedTable(shown, ['artifact', 'invocation', 'status', 'size', 'new bytes'], 'artifact');
      expect(
        rows
          .map((r) => r.invocation)
          .filter((id) => id !== '-')
          .sort(),
      ).toEqual(idsOf(lastDir).map(uniquePrefix).sort());
    });
    await atEveryWidth(['forget', '--keep-last', '3', '--dry-run'], (shown) => {
      const rows = readPrintedTable(shown, ['action', 'invocation', 'finished', 'branch', 'target', 'why kept'], 'invocation');
      expect(rows.map((r) => r.invocation).sort()).toEqual(ids.map(uniquePrefix).sort());
    });
    await atEveryWidth(['branch', 'list'], (shown) => {
      const [row, ...others] = readPrintedTable(shown, ['branch', 'head', 'updated', 'base'], 'branch');
      expect(others).toEqual([]);
      expect(row!.branch).toBe('prod');
      expect(ids.map(uniquePrefix)).toContain(row!.head);
    });
  }, 120_000);

  it('inspect, diff, info, verify, query and the notes of state --per-node', async () => {
    const run = uniquePrefix(failed[0]!.invocationId);
    await atEveryWidth(['inspect', run], (shown) => {
      // Each failure's message, as much as inspect shows of it (its first line), whole.
      for (const f of failed) expect(bare(shown)).toContain(bare(`${f.uniqueId}: ${f.message.split('\n')[0]}`));
    });
    await atEveryWidth(['diff', uniquePrefix(ids[0]!), run]);
    await atEveryWidth(['info']);
    await atEveryWidth(['verify']);
    await atEveryWidth(['query', 'select invocation_id, command, status_counts, args from invocation order by invocation_id'], (shown) => {
      // A query's columns are all text: a long id wraps within its cell, so rows are told apart by order alone.
      const rows = readPrintedTable(shown, ['invocation_id', 'command', 'status_counts', 'args'], 'invocation_id');
      expect(bare(rows.map((r) => r.invocation_id).join(''))).toBe([...ids].sort().join(''));
    });
    for (const columns of WIDTHS) {
      // Its stdout is a path for $(…), data never wrapped; what it says besides must fit.
      const result = await cli(['state', '--per-node', '--branch', 'prod'], columns);
      expect(result.exitCode, result.stderr).toBe(0);
      for (const line of result.stderr.split('\n')) expect([...line].length, line).toBeLessThanOrEqual(columns);
    }
  }, 120_000);
});
