import { existsSync, readdirSync, statSync } from 'node:fs';
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

if (!hasCorpus) {
  console.warn(`[dbtattic tests] ${CORPUS_DIR} not found: skipping the tests that read the real-artifact corpus.`);
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
