import { closeSync, existsSync, openSync, readdirSync, readSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The real artifacts from public projects live in ../shared/corpus, beside the clone; they are
 * other projects' data and never copied here. A clone without them skips only these tests.
 */
const here = path.dirname(fileURLToPath(import.meta.url));
export const CORPUS_DIR = process.env.DBTATTIC_CORPUS ?? path.resolve(here, '../../../shared/corpus');
export const SCHEMAS_DIR = path.resolve(CORPUS_DIR, '../dbt-schemas');
export const hasCorpus = existsSync(path.join(CORPUS_DIR, 'INVENTORY.md'));
export const hasSchemas = existsSync(SCHEMAS_DIR);

if (!hasCorpus) {
  console.warn(`[dbtattic tests] ${CORPUS_DIR} not found: skipping the tests that read the real-artifact corpus.`);
}
if (!hasSchemas) {
  console.warn(`[dbtattic tests] ${SCHEMAS_DIR} not found: skipping the checks of generated fixtures against dbt's JSON Schemas.`);
}

/**
 * The cases of an `it.each` over the corpus; without the corpus, one case that names what is
 * skipped, so the skip is counted and seen rather than the tests vanishing.
 */
export function corpusCases<T>(cases: () => T[], skipped: T): T[] {
  return hasCorpus ? cases() : [skipped];
}

/**
 * The first target dir of the corpus (by size, smallest first) whose artifacts satisfy `fits`,
 * chosen by what the files hold, not by folder names, which may change. With the corpus present
 * and no dir fitting, it throws: a silent skip would hide that the test lost its sample.
 */
export function findCorpusTarget(what: string, fits: (files: Map<string, string>) => boolean): string | undefined {
  if (!hasCorpus) return undefined;
  const candidates = corpusTargetDirs().map((dir) => {
    const files = new Map(
      readdirSync(dir)
        .filter((name) => ARTIFACT_NAMES.has(name))
        .map((name) => [name, path.join(dir, name)]),
    );
    const size = [...files.values()].reduce((sum, file) => sum + statSync(file).size, 0);
    return { dir, files, size };
  });
  const found = candidates.sort((a, b) => a.size - b.size || a.dir.localeCompare(b.dir)).find((c) => fits(c.files));
  if (!found) throw new Error(`No target dir in ${CORPUS_DIR} holds ${what}: the corpus changed, choose another sample.`);
  return found.dir;
}

/** `dbt_schema_version` from the start of an artifact (dbt writes metadata first), without reading it all. */
export function schemaVersionAt(file: string): string | undefined {
  const fd = openSync(file, 'r');
  try {
    const head = Buffer.alloc(4096);
    const length = readSync(fd, head, 0, head.length, 0);
    return /"dbt_schema_version"\s*:\s*"([^"]+)"/.exec(head.subarray(0, length).toString('utf8'))?.[1];
  } finally {
    closeSync(fd);
  }
}

const ARTIFACT_NAMES = new Set(['manifest.json', 'run_results.json', 'sources.json', 'catalog.json', 'semantic_manifest.json']);

/** Every artifact file in the corpus, as absolute paths, sorted. */
export function corpusArtifacts(): string[] {
  if (!hasCorpus) return [];
  const found: string[] = [];
  const walk = (dir: string): void => {
    for (const name of readdirSync(dir)) {
      const full = path.join(dir, name);
      if (statSync(full).isDirectory()) walk(full);
      else if (ARTIFACT_NAMES.has(name)) found.push(full);
    }
  };
  walk(CORPUS_DIR);
  return found.sort();
}

/** Directories of the corpus that hold at least one artifact: each is one captured target/. */
export function corpusTargetDirs(): string[] {
  return [...new Set(corpusArtifacts().map((file) => path.dirname(file)))].sort();
}
