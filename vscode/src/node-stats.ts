import path from 'node:path';
import { NODE_FILE_STATS } from './cli/store-sql.js';
import { statsOf, type NodeStats } from './model-text.js';
import type { AtticSession } from './session.js';

/**
 * The figures of every model, loaded once per change of the history (one CLI call) and
 * looked up by file or by name for CodeLenses, hovers and commands.
 */
export class NodeStatsIndex {
  private loading: Promise<NodeStats[] | null> | null = null;

  constructor(private readonly session: AtticSession) {
    session.changed(() => {
      this.loading = null;
    });
  }

  async byFile(fsPath: string): Promise<NodeStats | undefined> {
    const project = this.session.projectDir;
    if (!project) return undefined;
    const relative = path.relative(project, fsPath).split(path.sep).join('/');
    return (await this.all())?.find((stats) => stats.path === relative);
  }

  async byName(name: string): Promise<NodeStats | undefined> {
    return (
      (await this.all())?.find((stats) => stats.name === name && stats.resourceType !== 'seed') ?? (await this.all())?.find((stats) => stats.name === name)
    );
  }

  private all(): Promise<NodeStats[] | null> {
    this.loading ??= this.session.ask((client) => client.query(NODE_FILE_STATS)).then((answer) => (answer.ok ? answer.value.map(statsOf) : null));
    return this.loading;
  }
}
