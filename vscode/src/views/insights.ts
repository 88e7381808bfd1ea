import * as vscode from 'vscode';
import type { Row } from '../cli/attic-client.js';
import { INSIGHT_SQL } from '../cli/store-sql.js';
import { formatSeconds, formatWhen } from '../format.js';
import type { AtticSession } from '../session.js';

type InsightKey = keyof typeof INSIGHT_SQL;

export type InsightNode =
  | { kind: 'group'; key: InsightKey; rows: Row[] }
  | { kind: 'change-kind'; changeKind: string; rows: Row[] }
  | { kind: 'node'; key: InsightKey; row: Row };

const GROUP_TITLES: Record<InsightKey, string> = {
  regressions: 'Runtime regressions',
  flaky: 'Flaky tests',
  newlyFailing: 'Newly failing tests',
  changed: 'Recently changed models',
};

/** The Insights view: canned questions over the store's views; each node opens its history. */
export class InsightsView implements vscode.TreeDataProvider<InsightNode> {
  private readonly changedEmitter = new vscode.EventEmitter<void>();
  readonly onDidChangeTreeData = this.changedEmitter.event;
  view: vscode.TreeView<InsightNode> | undefined;

  constructor(private readonly session: AtticSession) {
    session.changed(() => this.changedEmitter.fire());
  }

  async getChildren(node?: InsightNode): Promise<InsightNode[]> {
    if (!node) return this.loadGroups();
    if (node.kind === 'group' && node.key === 'changed') return changeKinds(node.rows);
    if (node.kind === 'group') return node.rows.map((row) => ({ kind: 'node', key: node.key, row }));
    if (node.kind === 'change-kind') return node.rows.map((row) => ({ kind: 'node', key: 'changed', row }));
    return [];
  }

  getTreeItem(node: InsightNode): vscode.TreeItem {
    switch (node.kind) {
      case 'group':
        return groupItem(`${GROUP_TITLES[node.key]}`, node.rows.length);
      case 'change-kind':
        return groupItem(node.changeKind, node.rows.length);
      case 'node':
        return nodeItem(node.key, node.row);
    }
  }

  private async loadGroups(): Promise<InsightNode[]> {
    const groups: InsightNode[] = [];
    for (const key of Object.keys(INSIGHT_SQL) as InsightKey[]) {
      const rows = await this.session.ask((client) => client.query(INSIGHT_SQL[key]));
      if (!rows.ok) {
        if (this.view) this.view.message = rows.problem.message;
        return [];
      }
      groups.push({ kind: 'group', key, rows: rows.value });
    }
    if (this.view) this.view.message = undefined;
    return groups;
  }
}

function changeKinds(rows: Row[]): InsightNode[] {
  const byKind = new Map<string, Row[]>();
  for (const row of rows) {
    const kind = String(row.change_kind ?? 'other');
    byKind.set(kind, [...(byKind.get(kind) ?? []), row]);
  }
  return [...byKind].map(([changeKind, kindRows]) => ({ kind: 'change-kind', changeKind, rows: kindRows }));
}

function groupItem(title: string, count: number): vscode.TreeItem {
  const item = new vscode.TreeItem(title, count > 0 ? vscode.TreeItemCollapsibleState.Collapsed : vscode.TreeItemCollapsibleState.None);
  item.description = count > 0 ? String(count) : 'none';
  return item;
}

function nodeItem(key: InsightKey, row: Row): vscode.TreeItem {
  const uniqueId = String(row.unique_id);
  const item = new vscode.TreeItem(String(row.name ?? uniqueId), vscode.TreeItemCollapsibleState.None);
  item.description = describe(key, row);
  item.tooltip = uniqueId;
  item.contextValue = 'node';
  item.command = { command: 'dbtattic.nodeHistory', title: 'Show Node History', arguments: [uniqueId] };
  return item;
}

function describe(key: InsightKey, row: Row): string {
  switch (key) {
    case 'regressions':
      return `${formatSeconds(Number(row.last_s))} vs ${formatSeconds(Number(row.baseline_median_s))} (${Number(row.trend_ratio).toFixed(1)}×)`;
    case 'flaky':
      return `${String(row.passes)} passed, ${String(row.failures)} failed; last ${String(row.last_status)}`;
    case 'newlyFailing':
      return String(row.last_status);
    case 'changed':
      return `${formatWhen(String(row.changed_at))}: ${[row.what_changed].flat().join(', ')}`;
  }
}
