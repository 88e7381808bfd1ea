import * as vscode from 'vscode';
import { LastSuccessCompare } from './compare.js';
import { AtticDocuments, SCHEME } from './documents.js';
import { ModelLens, RefHover } from './model-lens.js';
import { NodeStatsIndex } from './node-stats.js';
import { QueryPanel } from './query-panel.js';
import { RunDocuments } from './run-documents.js';
import { AtticSession } from './session.js';
import { InsightsView } from './views/insights.js';
import { RunsView, type RunsNode } from './views/runs.js';

/** Wires the views, editor features and commands to one session with the project's store. */
export function activate(context: vscode.ExtensionContext): void {
  const log = vscode.window.createOutputChannel('dbtattic', { log: true });
  const session = new AtticSession(log);
  const documents = new AtticDocuments();
  const index = new NodeStatsIndex(session);
  const runs = new RunsView(session);
  const insights = new InsightsView(session);
  runs.view = vscode.window.createTreeView('dbtattic.runs', { treeDataProvider: runs, canSelectMany: true });
  insights.view = vscode.window.createTreeView('dbtattic.insights', { treeDataProvider: insights });
  const runDocuments = new RunDocuments(session, documents);
  const compare = new LastSuccessCompare(session, index, documents);
  const query = new QueryPanel(session);
  const models: vscode.DocumentSelector = [
    { scheme: 'file', language: 'sql' },
    { scheme: 'file', language: 'jinja-sql' },
    { scheme: 'file', pattern: '**/*.sql' },
  ];
  context.subscriptions.push(
    log,
    session,
    runs.view,
    insights.view,
    vscode.workspace.registerTextDocumentContentProvider(SCHEME, documents),
    vscode.languages.registerCodeLensProvider(models, new ModelLens(session, index)),
    vscode.languages.registerHoverProvider(models, new RefHover(index)),
    vscode.commands.registerCommand('dbtattic.refresh', () => session.connect()),
    vscode.commands.registerCommand('dbtattic.inspectRun', (id: string | RunsNode) => runDocuments.inspect(typeof id === 'string' ? id : id.run.invocation_id)),
    vscode.commands.registerCommand('dbtattic.compareRuns', (clicked?: RunsNode, selected?: RunsNode[]) =>
      runDocuments.compare(clicked ?? runs.view?.selection[0], selected ?? runs.view?.selection),
    ),
    vscode.commands.registerCommand('dbtattic.nodeHistory', (node: string | { row?: { unique_id?: unknown }; failure?: { unique_id: string } }) =>
      runDocuments.nodeHistory(typeof node === 'string' ? node : String(node.failure?.unique_id ?? node.row?.unique_id)),
    ),
    vscode.commands.registerCommand('dbtattic.compareWithLastSuccess', (uri?: vscode.Uri) => compare.compareCode(uri)),
    vscode.commands.registerCommand('dbtattic.compareCompiledWithLastSuccess', (uri?: vscode.Uri) => compare.compareCompiled(uri)),
    vscode.commands.registerCommand('dbtattic.openQuery', () => query.open()),
    vscode.workspace.onDidChangeConfiguration((event) => {
      if (event.affectsConfiguration('dbtattic')) void session.connect();
    }),
  );
  void session.connect();
}

export function deactivate(): void {}
