import * as vscode from 'vscode';

export const SCHEME = 'dbtattic';

/**
 * Read-only documents of the `dbtattic:` scheme: the text is fetched from the CLI first and
 * kept here, so VS Code can open (and diff) it like any file.
 */
export class AtticDocuments implements vscode.TextDocumentContentProvider {
  private readonly texts = new Map<string, string>();
  private readonly changedEmitter = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this.changedEmitter.event;

  provideTextDocumentContent(uri: vscode.Uri): string {
    return this.texts.get(uri.toString()) ?? 'This document is no longer available: open it again from the dbtattic views.';
  }

  /** Stores `text` under a `dbtattic:/<kind>/<name>` uri and returns it. */
  put(kind: string, name: string, text: string): vscode.Uri {
    const uri = vscode.Uri.from({ scheme: SCHEME, path: `/${kind}/${name}` });
    this.texts.set(uri.toString(), text);
    this.changedEmitter.fire(uri);
    return uri;
  }

  async show(kind: string, name: string, text: string): Promise<void> {
    const document = await vscode.workspace.openTextDocument(this.put(kind, name, text));
    await vscode.window.showTextDocument(document, { preview: true });
  }
}
