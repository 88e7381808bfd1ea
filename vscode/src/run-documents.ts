import * as vscode from 'vscode';
import type { AtticDocuments } from './documents.js';
import { alignedTable, formatSeconds, formatWhen } from './format.js';
import type { RunsNode } from './views/runs.js';
import type { AtticSession } from './session.js';

/** Commands that open what the CLI says about a run, two runs, or a node as read-only documents. */
export class RunDocuments {
  constructor(
    private readonly session: AtticSession,
    private readonly documents: AtticDocuments,
  ) {}

  async inspect(invocationId: string): Promise<void> {
    const answer = await this.session.ask((client) => client.inspectText(invocationId));
    if (!answer.ok) return void vscode.window.showWarningMessage(answer.problem.message);
    await this.documents.show('inspect', `${invocationId.slice(0, 8)}.txt`, answer.value);
  }

  /** From the Runs view: the two selected runs, or the clicked one against a picked one. */
  async compare(clicked?: RunsNode, selected?: readonly RunsNode[]): Promise<void> {
    const runs = (selected ?? (clicked ? [clicked] : [])).filter((node) => node.kind === 'run').map((node) => node.run);
    let [older, newer] = runs.length >= 2 ? [runs[1]!, runs[0]!] : [undefined, runs[0]];
    if (!newer) return;
    if (!older) {
      const all = await this.session.ask((client) => client.history(50));
      if (!all.ok) return void vscode.window.showWarningMessage(all.problem.message);
      const pick = await vscode.window.showQuickPick(
        all.value
          .filter((run) => run.invocation_id !== newer!.invocation_id)
          .map((run) => ({ label: `${run.invocation_id.slice(0, 8)} ${run.command ?? ''}`, description: `${run.outcome} · ${formatWhen(run.at)}`, run })),
        { placeHolder: `Compare ${newer.invocation_id.slice(0, 8)} with…` },
      );
      if (!pick) return;
      older = pick.run;
    }
    const answer = await this.session.ask((client) => client.diffText(older!.invocation_id, newer!.invocation_id));
    if (!answer.ok) return void vscode.window.showWarningMessage(answer.problem.message);
    await this.documents.show('diff', `${older.invocation_id.slice(0, 8)}..${newer.invocation_id.slice(0, 8)}.txt`, answer.value);
  }

  async nodeHistory(uniqueId: string): Promise<void> {
    const answer = await this.session.ask((client) => client.nodeHistory(uniqueId, 100));
    if (!answer.ok) return void vscode.window.showWarningMessage(answer.problem.message);
    const rows = answer.value.flatMap((run) =>
      (run.node_results ?? []).map((result) => [
        formatWhen(run.at),
        run.invocation_id.slice(0, 8),
        run.command ?? '-',
        run.target ?? '-',
        result.status ?? '-',
        formatSeconds(result.execution_time),
        run.branch ?? '-',
      ]),
    );
    const text = `${uniqueId}: ${rows.length} runs, newest first\n\n${alignedTable(['when', 'invocation', 'command', 'target', 'status', 'took', 'branch'], rows)}`;
    await this.documents.show('node', `${uniqueId}.txt`, text);
  }
}
