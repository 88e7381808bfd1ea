import { existsSync } from 'node:fs';
import path from 'node:path';
import * as vscode from 'vscode';
import { AtticClient, type Answer } from './cli/attic-client.js';
import type { CliProblem } from './cli/problem.js';
import { serialCliRunner, type CliOutcome } from './cli/run-cli.js';

/**
 * The extension's connection to one dbt project: the CLI client, and a `changed` event fired
 * when the archive's records change (a capture filed something), never on a timer.
 */
export class AtticSession implements vscode.Disposable {
  private readonly changedEmitter = new vscode.EventEmitter<void>();
  readonly changed = this.changedEmitter.event;
  client: AtticClient | null = null;
  projectDir: string | null = null;
  /** Why the project or CLI is not usable; shown by every view in place of its items. */
  setupProblem: CliProblem | null = null;
  private watchers: vscode.Disposable[] = [];
  private busy = false;
  private debounce: NodeJS.Timeout | undefined;

  constructor(private readonly log: vscode.LogOutputChannel) {}

  async connect(): Promise<void> {
    this.log.info('connecting');
    this.disposeWatchers();
    const config = vscode.workspace.getConfiguration('dbtattic');
    const executable = config.get<string>('cliPath') || 'dbtattic';
    this.projectDir = await findProjectDir(config.get<string>('projectDir') ?? '');
    if (!this.projectDir) {
      this.client = null;
      this.setupProblem = { kind: 'no-project', message: 'No dbt_project.yml in this workspace. Open a dbt project, or set "dbtattic.projectDir".' };
    } else {
      const logCall = (args: string[], outcome: CliOutcome): void =>
        this.log.info(`${executable} ${args.join(' ').replace(/\s+/g, ' ').slice(0, 120)} → ${outcome.spawnError?.code ?? `exit ${outcome.exitCode}`}`);
      this.client = new AtticClient(serialCliRunner({ executable, cwd: this.projectDir }, logCall), executable);
      const info = await this.client.info();
      this.setupProblem = info.ok ? null : info.problem;
      if (info.ok && info.value.remote === null) this.watchArchive(info.value.config.archive);
    }
    this.changedEmitter.fire();
  }

  /** An answer from the client, noting a busy store so that its release brings a refresh. */
  async ask<T>(question: (client: AtticClient) => Promise<Answer<T>>): Promise<Answer<T>> {
    if (!this.client) return { ok: false, problem: this.setupProblem ?? { kind: 'failed', message: 'dbtattic is not connected.' } };
    const answer = await question(this.client);
    if (!answer.ok && answer.problem.kind === 'missing-cli') this.setupProblem = answer.problem;
    this.busy = !answer.ok && answer.problem.kind === 'busy';
    return answer;
  }

  refresh(): void {
    this.changedEmitter.fire();
  }

  /**
   * Records change when a capture files something: that is when the history changes. The store
   * file itself is watched only while it is busy (our own reads write it while catching up, so
   * watching it always would refresh forever).
   */
  private watchArchive(archive: string): void {
    const records = watcherFor(path.join(archive, 'records'), '**');
    const store = watcherFor(path.dirname(archive), 'store.duckdb*');
    this.log.info(`watching ${archive}/records for new captures`);
    const soon = (): void => {
      this.log.info('the archive changed: refreshing');
      clearTimeout(this.debounce);
      // One capture writes several records: refresh once, after the burst.
      this.debounce = setTimeout(() => this.changedEmitter.fire(), 400);
    };
    const whenBusy = (): void => {
      if (this.busy) soon();
    };
    for (const event of [records.onDidCreate, records.onDidChange, records.onDidDelete]) this.watchers.push(event(soon));
    for (const event of [store.onDidChange, store.onDidDelete]) this.watchers.push(event(whenBusy));
    this.watchers.push(records, store);
  }

  private disposeWatchers(): void {
    for (const watcher of this.watchers) watcher.dispose();
    this.watchers = [];
  }

  dispose(): void {
    clearTimeout(this.debounce);
    this.disposeWatchers();
    this.changedEmitter.dispose();
  }
}

/** A watcher for `pattern` under `dir`, based on its nearest existing ancestor (a store not yet made). */
function watcherFor(dir: string, pattern: string): vscode.FileSystemWatcher {
  let base = dir;
  while (!existsSync(base) && path.dirname(base) !== base) base = path.dirname(base);
  const rest = path.relative(base, dir).split(path.sep).filter(Boolean);
  return vscode.workspace.createFileSystemWatcher(new vscode.RelativePattern(vscode.Uri.file(base), [...rest, pattern].join('/')));
}

async function findProjectDir(configured: string): Promise<string | null> {
  const folders = vscode.workspace.workspaceFolders ?? [];
  if (configured) return path.resolve(folders[0]?.uri.fsPath ?? '', configured);
  for (const folder of folders) {
    if (existsSync(path.join(folder.uri.fsPath, 'dbt_project.yml'))) return folder.uri.fsPath;
  }
  const found = await vscode.workspace.findFiles('**/dbt_project.yml', '**/{node_modules,target,dbt_packages}/**', 1);
  return found[0] ? path.dirname(found[0].fsPath) : null;
}
