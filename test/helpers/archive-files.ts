import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

/**
 * Reads an archive directory as its format (docs/archive-format.md) lays it out, without going
 * through dbtattic's code, so end-to-end tests check the format rather than reuse its reader.
 */
export function archiveDirOf(projectDir: string): string {
  return path.join(projectDir, '.dbtattic', 'archive');
}

/** Every file under `dir`, as '/'-separated paths relative to it, sorted; temp files included. */
export function listArchiveFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  const out: string[] = [];
  const walk = (rel: string): void => {
    for (const entry of readdirSync(path.join(dir, rel), { withFileTypes: true })) {
      const child = rel ? `${rel}/${entry.name}` : entry.name;
      if (entry.isDirectory()) walk(child);
      else out.push(child);
    }
  };
  walk('');
  return out.sort();
}

/** What a capture record says about one artifact (only the fields tests read). */
export interface CaptureEntry {
  artifact: string;
  status: string;
  path: string;
  invocation_id: string | null;
  sha256: string | null;
  error?: string;
}

export interface CaptureRecordJson {
  capture_id: string;
  phase: string;
  run: { argv: string[]; started_at: string; ended_at: string; exit_code: number; signal: string | null } | null;
  artifacts: CaptureEntry[];
}

export function readCaptureRecords(archiveDir: string): CaptureRecordJson[] {
  const dir = path.join(archiveDir, 'records', 'captures');
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((name) => name.endsWith('.json'))
    .sort()
    .map((name) => JSON.parse(readFileSync(path.join(dir, name), 'utf8')) as CaptureRecordJson);
}

/** Artifact record keys: records/invocations/<invocation>/<artifact>-<sha256>.json. */
export function listArtifactRecordFiles(archiveDir: string): { invocation: string; artifact: string; sha256: string; file: string }[] {
  return listArchiveFiles(path.join(archiveDir, 'records', 'invocations')).map((rel) => {
    const match = /^([^/]+)\/([a-z_]+)-([0-9a-f]{64})\.json$/.exec(rel);
    if (!match) throw new Error(`unexpected file in records/invocations: ${rel}`);
    return { invocation: decodeURIComponent(match[1]!), artifact: match[2]!, sha256: match[3]!, file: rel };
  });
}

export function sha256Of(bytesOrFile: Buffer | string): string {
  const bytes = typeof bytesOrFile === 'string' ? readFileSync(bytesOrFile) : bytesOrFile;
  return createHash('sha256').update(bytes).digest('hex');
}

/** metadata.invocation_id of an artifact file, read as plain JSON. */
export function invocationIdOf(file: string): string {
  const doc = JSON.parse(readFileSync(file, 'utf8')) as { metadata?: { invocation_id?: unknown } };
  const id = doc.metadata?.invocation_id;
  if (typeof id !== 'string') throw new Error(`${file} has no metadata.invocation_id`);
  return id;
}
