import * as vscode from 'vscode';
import type { Invocation, NodeFailure } from '../cli/attic-client.js';
import { firstLine, formatSeconds, formatWhen } from '../format.js';
import type { AtticSession } from '../session.js';

export type RunsNode = { kind: 'run'; run: Invocation } | { kind: 'failure'; run: Invocation; failure: NodeFailure };

/** The Runs view: invocations newest first; a failed one expands to its failed nodes. */
export class RunsView implements vscode.TreeDataProvider<RunsNode> {
  private readonly changedEmitter = new vscode.EventEmitter<void>();
  readonly onDidChangeTreeData = this.changedEmitter.event;
  view: vscode.TreeView<RunsNode> | undefined;

  constructor(private readonly session: AtticSession) {
    session.changed(() => this.changedEmitter.fire());
  }

  async getChildren(node?: RunsNode): Promise<RunsNode[]> {
    if (node) return node.kind === 'run' ? (node.run.failures ?? []).map((failure) => ({ kind: 'failure', run: node.run, failure })) : [];
    const runs = await this.loadRuns();
    return runs.map((run) => ({ kind: 'run', run }));
  }

  getTreeItem(node: RunsNode): vscode.TreeItem {
    return node.kind === 'run' ? runItem(node.run) : failureItem(node.failure);
  }

  private async loadRuns(): Promise<Invocation[]> {
    const limit = vscode.workspace.getConfiguration('dbtattic').get<number>('historyLimit') ?? 50;
    const runs = await this.session.ask((client) => client.history(limit));
    if (!runs.ok) return this.say(runs.problem.message);
    const failed = await this.session.ask((client) => client.failedRuns(limit));
    if (!failed.ok) return this.say(failed.problem.message);
    const failures = new Map(failed.value.map((run) => [run.invocation_id, run.failures ?? []]));
    this.say(runs.value.length === 0 ? 'No invocations yet. Run `dbtattic run -- dbt build` in the project.' : undefined);
    return runs.value.map((run) => ({ ...run, failures: failures.get(run.invocation_id) ?? [] }));
  }

  private say(message: string | undefined): [] {
    if (this.view) this.view.message = message;
    return [];
  }
}

function runItem(run: Invocation): vscode.TreeItem {
  const failures = run.failures ?? [];
  const item = new vscode.TreeItem(
    run.command ?? '(unknown command)',
    failures.length > 0 ? vscode.TreeItemCollapsibleState.Collapsed : vscode.TreeItemCollapsibleState.None,
  );
  item.id = run.invocation_id;
  item.description = [run.outcome, run.target ?? '-', run.git_sha?.slice(0, 7) ?? '-', run.branch ?? run.git_branch ?? '-', formatWhen(run.at)].join(' · ');
  const counts =
    Object.entries(run.status_counts ?? {})
      .map(([status, n]) => `${n} ${status}`)
      .join(', ') || 'no results';
  item.tooltip = `${run.invocation_id}\n${counts}\ntook ${formatSeconds(run.elapsed_s)}${run.run_exit_code === null ? '' : `, exit ${run.run_exit_code}`}`;
  item.iconPath = outcomeIcon(run.outcome);
  item.contextValue = run.outcome === 'failed' ? 'run-failed' : 'run';
  item.command = { command: 'dbtattic.inspectRun', title: 'Inspect Run', arguments: [run.invocation_id] };
  return item;
}

function failureItem(failure: NodeFailure): vscode.TreeItem {
  const item = new vscode.TreeItem(failure.unique_id, vscode.TreeItemCollapsibleState.None);
  item.description = `${failure.status ?? '-'}: ${firstLine(failure.message)}`;
  item.tooltip = failure.message ?? undefined;
  item.iconPath = new vscode.ThemeIcon('error', new vscode.ThemeColor('testing.iconFailed'));
  item.contextValue = 'node';
  item.command = { command: 'dbtattic.nodeHistory', title: 'Show Node History', arguments: [failure.unique_id] };
  return item;
}

function outcomeIcon(outcome: Invocation['outcome']): vscode.ThemeIcon {
  switch (outcome) {
    case 'ok':
      return new vscode.ThemeIcon('pass', new vscode.ThemeColor('testing.iconPassed'));
    case 'failed':
      return new vscode.ThemeIcon('error', new vscode.ThemeColor('testing.iconFailed'));
    case 'none':
      return new vscode.ThemeIcon('circle-outline');
  }
}
