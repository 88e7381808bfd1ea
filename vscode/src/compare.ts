import path from 'node:path';
import * as vscode from 'vscode';
import type { Row } from './cli/attic-client.js';
import { latestCompiledSql, lastSuccessSql } from './cli/store-sql.js';
import type { AtticDocuments } from './documents.js';
import { formatWhen } from './format.js';
import type { NodeStats } from './model-text.js';
import type { NodeStatsIndex } from './node-stats.js';
import type { AtticSession } from './session.js';

/**
 * "Compare with last successful build": VS Code's diff of the model's code as archived in the
 * newest build where it succeeded against the file as it is now; and of the SQL it compiled to
 * then against the newest compiled SQL archived.
 */
export class LastSuccessCompare {
  constructor(
    private readonly session: AtticSession,
    private readonly index: NodeStatsIndex,
    private readonly documents: AtticDocuments,
  ) {}

  async compareCode(uri?: vscode.Uri): Promise<void> {
    const found = await this.lastSuccessOf(uri);
    if (!found) return;
    const { file, stats, success } = found;
    const left = this.documents.put('code', `${shortId(success)}/${path.basename(stats.path)}`, String(success.raw_code ?? ''));
    await vscode.commands.executeCommand(
      'vscode.diff',
      left,
      file,
      `${path.basename(stats.path)}: last success (${shortId(success)}, ${formatWhen(String(success.invoked_at))}) ↔ now`,
    );
  }

  async compareCompiled(uri?: vscode.Uri): Promise<void> {
    const found = await this.lastSuccessOf(uri);
    if (!found) return;
    const { stats, success } = found;
    if (success.compiled_code === null || success.compiled_code === undefined) {
      void vscode.window.showInformationMessage(
        `The SQL ${stats.name} compiled to in ${shortId(success)} is not archived (that build's manifest has no compiled code).`,
      );
      return;
    }
    const latest = await this.session.ask((client) => client.query(latestCompiledSql(stats.uniqueId)));
    const newest = latest.ok ? latest.value[0] : undefined;
    if (!newest) return void vscode.window.showWarningMessage(latest.ok ? `No compiled SQL of ${stats.name} archived.` : latest.problem.message);
    const left = this.documents.put('compiled', `${shortId(success)}/${stats.name}.sql`, String(success.compiled_code));
    const right = this.documents.put('compiled', `${shortId(newest)}/${stats.name}.sql`, String(newest.compiled_code ?? ''));
    await vscode.commands.executeCommand(
      'vscode.diff',
      left,
      right,
      `${stats.name} compiled: last success (${shortId(success)}) ↔ newest (${shortId(newest)})`,
    );
  }

  private async lastSuccessOf(uri?: vscode.Uri): Promise<{ file: vscode.Uri; stats: NodeStats; success: Row } | undefined> {
    const file = uri ?? vscode.window.activeTextEditor?.document.uri;
    if (!file) return void vscode.window.showInformationMessage('Open a model file first.');
    const stats = await this.index.byFile(file.fsPath);
    if (!stats) return void vscode.window.showInformationMessage(`dbtattic knows no model at ${vscode.workspace.asRelativePath(file)}.`);
    const answer = await this.session.ask((client) => client.query(lastSuccessSql(stats.uniqueId)));
    if (!answer.ok) return void vscode.window.showWarningMessage(answer.problem.message);
    const success = answer.value[0];
    if (!success) return void vscode.window.showInformationMessage(`No successful build of ${stats.name} is archived yet.`);
    return { file, stats, success };
  }
}

function shortId(row: Row): string {
  return String(row.invocation_id).slice(0, 8);
}
