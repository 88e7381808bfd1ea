import * as vscode from 'vscode';
import { formatSeconds } from './format.js';
import { lensTitle, refTarget } from './model-text.js';
import type { NodeStatsIndex } from './node-stats.js';
import type { AtticSession } from './session.js';

/** Above a model's file: its last status, runtimes and trend, and the compare command. */
export class ModelLens implements vscode.CodeLensProvider {
  private readonly changedEmitter = new vscode.EventEmitter<void>();
  readonly onDidChangeCodeLenses = this.changedEmitter.event;

  constructor(
    session: AtticSession,
    private readonly index: NodeStatsIndex,
  ) {
    session.changed(() => this.changedEmitter.fire());
  }

  async provideCodeLenses(document: vscode.TextDocument): Promise<vscode.CodeLens[]> {
    const stats = await this.index.byFile(document.uri.fsPath);
    if (!stats) return [];
    const top = new vscode.Range(0, 0, 0, 0);
    return [
      new vscode.CodeLens(top, {
        title: lensTitle(stats),
        tooltip: `${stats.uniqueId}: open its history`,
        command: 'dbtattic.nodeHistory',
        arguments: [stats.uniqueId],
      }),
      new vscode.CodeLens(top, { title: 'Compare with last successful build', command: 'dbtattic.compareWithLastSuccess', arguments: [document.uri] }),
    ];
  }
}

/** ref('x') (or ref('package', 'x')) under the pointer: x's last status and runtime. */
export class RefHover implements vscode.HoverProvider {
  constructor(private readonly index: NodeStatsIndex) {}

  async provideHover(document: vscode.TextDocument, position: vscode.Position): Promise<vscode.Hover | undefined> {
    const range = document.getWordRangeAtPosition(position, /ref\(\s*(['"])[^'"]+\1\s*(,\s*(['"])[^'"]+\3\s*)?(,\s*v(ersion)?\s*=\s*[^)]*)?\)/);
    if (!range) return undefined;
    const name = refTarget(document.getText(range));
    const stats = name ? await this.index.byName(name) : undefined;
    if (!stats) return undefined;
    const text = new vscode.MarkdownString(
      `**${stats.name}** (${stats.resourceType}): last ${stats.lastStatus ?? 'not built'}, ${formatSeconds(stats.lastSeconds)}; median ${formatSeconds(stats.medianSeconds)}`,
    );
    return new vscode.Hover(text, range);
  }
}
