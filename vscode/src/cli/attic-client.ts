import { problemOf, type CliProblem } from './problem.js';
import type { CliRunner } from './run-cli.js';
import type { HistoryRow as Invocation, InfoAnswer } from '../../../src/answers/index.js';

/** A CLI answer: the value, or the problem to show in its place. */
export type Answer<T> = { ok: true; value: T } | { ok: false; problem: CliProblem };

/**
 * The shapes the CLI answers with, declared once in dbtattic's own source (src/answers/): a field
 * renamed there fails this build. Types only, so nothing of it reaches the bundle.
 */
export type { HistoryRow as Invocation, NodeResult as NodeFailure, NodeResult } from '../../../src/answers/index.js';

/** The parts of `dbtattic info --json` the extension reads: where the archive lives. */
export type StoreInfo = Pick<InfoAnswer, 'config' | 'remote'>;

export type Row = Record<string, unknown>;

/**
 * The extension's one way to the store: the dbtattic CLI with `--json`, so the store's schema
 * has one definition (the CLI's) and the extension never opens DuckDB itself.
 */
export class AtticClient {
  constructor(
    private readonly run: CliRunner,
    private readonly executable: string,
  ) {}

  history(limit: number): Promise<Answer<Invocation[]>> {
    return this.json(['history', '--json', '--limit', String(limit)]);
  }

  /** Failed runs, each with its failed nodes and dbt's messages. */
  failedRuns(limit: number): Promise<Answer<Invocation[]>> {
    return this.json(['history', '--failed', '--json', '--limit', String(limit)]);
  }

  nodeHistory(node: string, limit: number): Promise<Answer<Invocation[]>> {
    return this.json(['history', '--node', node, '--json', '--limit', String(limit)]);
  }

  query(sql: string, limit?: number): Promise<Answer<Row[]>> {
    return this.json(['query', '--json', ...(limit === undefined ? [] : ['--limit', String(limit)]), '--', sql]);
  }

  info(): Promise<Answer<StoreInfo>> {
    return this.json(['info', '--json', '--offline']);
  }

  /** `inspect` as the CLI writes it for a reader (plain text off a terminal). */
  inspectText(invocation: string): Promise<Answer<string>> {
    return this.text(['inspect', invocation, '--no-pager']);
  }

  diffText(from: string, to: string): Promise<Answer<string>> {
    return this.text(['diff', from, to, '--no-pager']);
  }

  private async json<T>(args: string[]): Promise<Answer<T>> {
    const answer = await this.text(args);
    if (!answer.ok) return answer;
    try {
      return { ok: true, value: JSON.parse(answer.value) as T };
    } catch {
      return { ok: false, problem: { kind: 'failed', message: `dbtattic ${args[0]} did not print JSON; is "${this.executable}" dbtattic?` } };
    }
  }

  private async text(args: string[]): Promise<Answer<string>> {
    const outcome = await this.run(args);
    const problem = problemOf(outcome, this.executable);
    return problem ? { ok: false, problem } : { ok: true, value: outcome.stdout };
  }
}
