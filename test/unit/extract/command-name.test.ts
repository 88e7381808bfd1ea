import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { extractCatalog, extractRunResults, typedCommandName } from '../../../src/extract/index.js';
import { corpusArtifacts, hasCorpus } from '../../helpers/corpus.js';
import { bytes, syntheticMetadata } from './synthetic.js';

/**
 * One naming of dbt's commands, the one its users type. Expected names are written by hand from
 * what each artifact's args say (which, and rpc_method through dbt-rpc).
 */
const TYPED: Record<string, string> = { generate: 'docs generate', 'docs.generate': 'docs generate', build: 'build', run: 'run', test: 'test', seed: 'seed', snapshot: 'snapshot', compile: 'compile' };

describe.skipIf(!hasCorpus)('the command of every run_results in the corpus', () => {
  const files = corpusArtifacts().filter((f) => f.endsWith('run_results.json'));

  it('is named as typed: docs generate (also through dbt-rpc), never generate or rpc', () => {
    let seen = 0;
    for (const file of files) {
      const buf = readFileSync(file);
      const args = (JSON.parse(buf.toString('utf8')) as { args?: { which?: string; rpc_method?: string } }).args;
      const raw = args?.which === 'rpc' ? args.rpc_method : args?.which;
      if (raw === undefined || !(raw in TYPED)) continue;
      const extracted = extractRunResults(buf, { acceptNewerSchema: true, invocationId: 'corpus' });
      expect(extracted.invocation.command, file).toBe(TYPED[raw]);
      seen++;
    }
    expect(seen).toBeGreaterThan(100);
  });
});

describe('command names', () => {
  it('are the same whatever spelling --command is given', () => {
    expect(['generate', 'docs generate', 'Docs Generate', 'docs.generate'].map(typedCommandName)).toEqual(Array(4).fill('docs generate'));
    expect(['freshness', 'snapshot-freshness', 'source freshness'].map(typedCommandName)).toEqual(Array(3).fill('source freshness'));
    expect(typedCommandName('build')).toBe('build');
  });

  it('of a catalog alone is docs generate, the only command that writes one', () => {
    const catalog = extractCatalog(bytes({ metadata: syntheticMetadata('catalog', 1), nodes: {}, sources: {}, errors: null }));
    expect(catalog.invocation.command).toBe('docs generate');
  });
});
