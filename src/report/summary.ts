import { listPlanRecords, openArchive } from '../archive/index.js';
import type { AtticConfig } from '../config/resolve.js';
import {
  branchBaseReader,
  diffInvocations,
  invocationAbbreviator,
  previousInvocation,
  readInvocation,
  readRunEdges,
  readRunFailures,
  readRuntimeRegressions,
  resolveInvocationRef,
  type Database,
} from '../store/index.js';
import { downstreamOf } from './downstream.js';
import { AtticError } from '../errors.js';
import { markdownSummary } from './markdown.js';
import { num, text } from './shape.js';

export interface SummaryOptions {
  from?: string;
  to?: string;
  /** Where the whole report is, linked when the summary's lists are cut to fit a comment. */
  reportUrl?: string;
}

/** The markdown summary from A to B: B defaults to the newest run, A to the run before B on its branch and target. */
export async function readMarkdownSummary(db: Database, config: AtticConfig, options: SummaryOptions): Promise<string> {
  const c = db.connection;
  const baseOf = branchBaseReader(config);
  const to = await resolveInvocationRef(c, { id: options.to ?? '', baseOf, ...(options.to === undefined ? { at: '9999-12-31' } : {}) });
  const from = options.from !== undefined ? await resolveInvocationRef(c, { id: options.from, baseOf }) : await previousInvocation(c, to);
  if (!from) throw new AtticError('not-found', `No run before ${to} on its branch and target to compare with; name one with --from.`);
  const regressions = (await readRuntimeRegressions(c)).filter((r) => r.last_invocation_id === to);
  const changes = await diffInvocations(c, from, to);
  const changed = (changes.nodes ?? []).filter((n) => n.change !== 'removed').map((n) => String(n.unique_id));
  return markdownSummary(
    {
      changes,
      short: await invocationAbbreviator(c),
      ran: statusCounts((await readInvocation(c, to)).status_counts),
      downstream: downstreamOf(await readRunEdges(c, to), changed),
      failures: (await readRunFailures(c, to)).map((f) => ({ unique_id: String(f.unique_id), status: String(f.status), message: text(f.message) })),
      regressions: regressions.map((r) => ({
        unique_id: String(r.unique_id),
        last_s: num(r.last_s)!,
        baseline_median_s: num(r.baseline_median_s)!,
        trend_ratio: num(r.trend_ratio)!,
      })),
      plan: await newestPlanCounts(config, to),
    },
    { reportUrl: options.reportUrl },
  );
}

/** The invocation's `status_counts` (JSON in the store), or null when it has no results. */
function statusCounts(value: unknown): Record<string, number> | null {
  const parsed: unknown = typeof value === 'string' ? JSON.parse(value) : value;
  if (!parsed || typeof parsed !== 'object') return null;
  return Object.fromEntries(Object.entries(parsed).filter((e): e is [string, number] => typeof e[1] === 'number'));
}

/** reuse/build counts of the newest plan recorded for the invocation's manifest (`dbtattic plan`), if any. */
async function newestPlanCounts(config: AtticConfig, invocationId: string): Promise<{ reuse: number; build: number } | null> {
  const backend = await openArchive(config.archiveLocation, { create: false, remote: config.remote });
  const plans = await listPlanRecords(backend, invocationId);
  const newest = plans[plans.length - 1] as { counts?: { reuse?: unknown; build?: unknown } } | undefined;
  const counts = newest?.counts;
  return counts && typeof counts.reuse === 'number' && typeof counts.build === 'number' ? { reuse: counts.reuse, build: counts.build } : null;
}
