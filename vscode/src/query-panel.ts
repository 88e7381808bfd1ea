import { randomBytes } from 'node:crypto';
import * as vscode from 'vscode';
import { STARTER_QUERIES } from './cli/store-sql.js';
import type { AtticSession } from './session.js';

const ROW_LIMIT = 500;

/** The Query panel: read-only SQL against the store (the CLI's `query`), results in a table. */
export class QueryPanel {
  private panel: vscode.WebviewPanel | undefined;

  constructor(private readonly session: AtticSession) {}

  open(): void {
    if (this.panel) return this.panel.reveal();
    this.panel = vscode.window.createWebviewPanel('dbtattic.query', 'dbtattic Query', vscode.ViewColumn.Active, {
      enableScripts: true,
      retainContextWhenHidden: true,
    });
    this.panel.webview.html = pageHtml(this.panel.webview.cspSource);
    this.panel.webview.onDidReceiveMessage((message: { sql?: unknown }) => void this.run(String(message.sql ?? '')));
    this.panel.onDidDispose(() => (this.panel = undefined));
  }

  private async run(sql: string): Promise<void> {
    const answer = await this.session.ask((client) => client.query(sql, ROW_LIMIT));
    void this.panel?.webview.postMessage(answer.ok ? { rows: answer.value, limit: ROW_LIMIT } : { problem: answer.problem.message });
  }
}

function pageHtml(cspSource: string): string {
  const nonce = randomBytes(16).toString('base64');
  const starters = STARTER_QUERIES.map((q, i) => `<option value="${i}">${escapeHtml(q.label)}</option>`).join('');
  return `<!DOCTYPE html><html><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src ${cspSource} 'nonce-${nonce}'; script-src 'nonce-${nonce}';">
<style nonce="${nonce}">
body { font-family: var(--vscode-font-family); color: var(--vscode-foreground); }
textarea { width: 100%; height: 7em; font-family: var(--vscode-editor-font-family); background: var(--vscode-input-background); color: var(--vscode-input-foreground); border: 1px solid var(--vscode-input-border, transparent); }
button, select { margin: 4px 4px 8px 0; }
table { border-collapse: collapse; font-family: var(--vscode-editor-font-family); font-size: var(--vscode-editor-font-size); }
th, td { border: 1px solid var(--vscode-panel-border); padding: 2px 6px; text-align: left; vertical-align: top; white-space: pre; }
th { background: var(--vscode-editor-inactiveSelectionBackground); }
#status { opacity: 0.8; margin: 4px 0; }
</style></head><body>
<select id="starter"><option value="">Starter queries…</option>${starters}</select>
<textarea id="sql" spellcheck="false">${escapeHtml(STARTER_QUERIES[0]!.sql)}</textarea>
<button id="run">Run (Ctrl+Enter)</button><span id="status"></span>
<div id="result"></div>
<script nonce="${nonce}">
const vscode = acquireVsCodeApi();
const starters = ${JSON.stringify(STARTER_QUERIES.map((q) => q.sql))};
const sql = document.getElementById('sql'), status = document.getElementById('status'), result = document.getElementById('result');
document.getElementById('starter').onchange = (e) => { if (e.target.value !== '') sql.value = starters[Number(e.target.value)]; };
const run = () => { status.textContent = 'running…'; vscode.postMessage({ sql: sql.value }); };
document.getElementById('run').onclick = run;
sql.onkeydown = (e) => { if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) run(); };
const cell = (tag, value) => { const el = document.createElement(tag); el.textContent = value === null || value === undefined ? '' : typeof value === 'object' ? JSON.stringify(value) : String(value); return el; };
window.addEventListener('message', ({ data }) => {
  result.replaceChildren();
  if (data.problem) { status.textContent = data.problem; return; }
  const rows = data.rows, names = rows.length ? Object.keys(rows[0]) : [];
  status.textContent = rows.length + (rows.length === 1 ? ' row' : ' rows') + (rows.length >= data.limit ? ' (the first ' + data.limit + ')' : '');
  const table = document.createElement('table'), head = document.createElement('tr');
  names.forEach((n) => head.appendChild(cell('th', n)));
  table.appendChild(head);
  rows.forEach((row) => { const tr = document.createElement('tr'); names.forEach((n) => tr.appendChild(cell('td', row[n]))); table.appendChild(tr); });
  result.appendChild(table);
});
</script></body></html>`;
}

function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}
