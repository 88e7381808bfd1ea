import { readFileSync } from 'node:fs';
import path from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * Runs the slowest files first, so no minute-long file starts last and holds the run open
 * alone. Vitest does so from its own cache of durations, which a fresh clone (CI) does not
 * have; file-seconds.json (seconds per file of at least 3 s, written down from a run on two
 * cores) stands in for it. Files it does not name run first, as vitest runs unknown files.
 */
/** Above any file written down. */
const UNKNOWN = 1e9;
const seconds = JSON.parse(readFileSync(path.join(import.meta.dirname, 'file-seconds.json'), 'utf8')) as Record<string, number>;

export default class SlowestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const root = files[0]?.project.config.root ?? process.cwd();
    const weight = (file: TestSpecification): number => seconds[path.relative(root, file.moduleId)] ?? UNKNOWN;
    return [...files].sort((a, b) => weight(b) - weight(a));
  }
}
