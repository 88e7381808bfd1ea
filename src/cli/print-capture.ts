import path from 'node:path';
import type { CapturedArtifact } from '../archive/index.js';
import type { CaptureOutcome } from '../capture/index.js';
import { formatBytes } from './format.js';
import { printJson, type CliIo } from './io.js';
import { id, printTable, text } from './print-table.js';

interface PrintOptions {
  json: boolean;
  quiet: boolean;
  /** Invocation ids as printed: their shortest unique prefixes. */
  abbreviate: (id: string) => string;
}

/** The artifacts a capture saw, or for a dry run the ones it would have. */
export function captureRows(outcome: CaptureOutcome): CapturedArtifact[] {
  return outcome.record?.artifacts ?? outcome.plan.artifacts.map(plannedRow);
}

/** Prints a capture's outcome; returns true when some artifact could not be captured. */
export function printCaptureResult(io: CliIo, outcome: CaptureOutcome, options: PrintOptions): boolean {
  const rows = captureRows(outcome);
  const failed = rows.some((r) => r.status === 'error');
  const dryRun = outcome.record === null;
  if (options.json) {
    const written = rows.some((r) => r.status === 'captured' || r.status === 'repaired');
    const outputs = outcome.record?.outputs ?? [];
    const filed = written || outputs.some((o) => o.status === 'captured');
    // A dry run captured nothing: it says so in JSON as in the table.
    const artifacts = dryRun ? rows.map((r) => (r.status === 'captured' ? { ...r, status: 'would capture' } : r)) : rows;
    printJson(io, { capture_id: filed && !dryRun ? (outcome.record?.capture_id ?? null) : null, dry_run: dryRun, artifacts, outputs });
    return failed;
  }
  const othersKept = rows.some((r) => r.status === 'captured' || r.status === 'unchanged');
  for (const output of (outcome.record?.outputs ?? []).filter((o) => o.status === 'error')) {
    const whose = output.invocation_id ? ` of invocation ${output.invocation_id}` : '';
    io.stderr(`${io.color.yellow('warning:')} ${output.output}${whose}: ${output.error}\n`);
  }
  for (const row of rows.filter((r) => r.status === 'error')) {
    io.stderr(`${io.color.red('error:')} ${row.path}: ${row.error} — left out${othersKept ? '; the other artifacts were captured' : ''}.\n`);
  }
  if (options.quiet) return failed;
  // An artifact dbt did not write is no news; `--json` still lists it, for scripts.
  const present = rows.filter((r) => r.status !== 'absent');
  const outputs = outcome.record?.outputs ?? [];
  if (present.length === 0 && outputs.length === 0) {
    const where = rows[0] ? path.dirname(rows[0].path) : 'target/';
    io.stderr(`nothing to capture: ${where} holds none of dbt's artifacts (${rows.map((r) => path.basename(r.path)).join(', ')}).\n`);
    return failed;
  }
  printTable(
    io,
    [text('artifact'), id('invocation'), text('status'), text('size', { drop: 2 }), text('new bytes', { drop: 1 })],
    [
      ...present.map((r) => [
        r.artifact,
        r.invocation_id ? options.abbreviate(r.invocation_id) : '-',
        dryRun && r.status === 'captured' ? 'would capture' : colourStatus(io, r.status),
        formatBytes(r.size),
        formatBytes(r.stored_bytes),
      ]),
      ...outputs.map((o) => [
        o.output === 'sql' ? `sql (${o.entries} files)` : `log (${o.entries} lines)`,
        o.invocation_id ? options.abbreviate(o.invocation_id) : '-',
        colourStatus(io, o.status),
        formatBytes(o.size),
        formatBytes(o.stored_bytes),
      ]),
    ],
  );
  const byContent = rows.filter((r) => r.invocation_id?.startsWith('content-'));
  if (byContent.some((r) => r.artifact !== 'semantic_manifest')) {
    io.stderr('note: artifacts from before dbt 0.19 carry no invocation id; they are filed under one derived from their content (content-…).\n');
  }
  if (byContent.some((r) => r.artifact === 'semantic_manifest')) {
    io.stderr(
      'note: semantic_manifest.json carries no invocation id and no manifest.json is beside it; it is filed under one derived from its content (content-…).\n',
    );
  }
  return failed;
}

function plannedRow(planned: CaptureOutcome['plan']['artifacts'][number]): CapturedArtifact {
  if (planned.action === 'absent')
    return { artifact: planned.artifact, status: 'absent', path: planned.path, invocation_id: null, sha256: null, size: null, stored_bytes: 0 };
  if (planned.action === 'error')
    return {
      artifact: planned.artifact,
      status: 'error',
      path: planned.path,
      invocation_id: null,
      sha256: null,
      size: null,
      stored_bytes: 0,
      error: planned.error,
    };
  const item = planned.item;
  const status = planned.action === 'store' ? 'captured' : planned.action === 'forgotten' ? 'forgotten' : 'unchanged';
  return { artifact: item.artifact, status, path: item.path, invocation_id: item.invocationId, sha256: item.sha256, size: item.size, stored_bytes: 0 };
}

function colourStatus(io: CliIo, status: CapturedArtifact['status']): string {
  switch (status) {
    case 'captured':
      return io.color.green(status);
    case 'repaired':
      return io.color.yellow(status);
    case 'unchanged':
    case 'forgotten':
      return io.color.dim(status);
    case 'absent':
      return io.color.dim(status);
    case 'error':
      return io.color.red(status);
  }
}
