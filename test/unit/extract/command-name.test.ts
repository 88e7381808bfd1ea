import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { extractCatalog, extractRunResults, mergeInvocationFacts, typedCommandName } from '../../../src/extract/index.js';
import { corpusArtifacts, hasCorpus } from '../../helpers/corpus.js';
import { bytes, syntheticMetadata } from './synthetic.js';

/**
 * One naming of dbt's commands, the one its users type. Expected names are written by hand from
 * what each artifact's args say (which, and rpc_method through dbt-rpc).
 */
const TYPED: Record<string, string> = {
  generate: 'docs generate',
  'docs.generate': 'docs generate',
  build: 'build',
  run: 'run',
  test: 'test',
  seed: 'seed',
  snapshot: 'snapshot',
  compile: 'compile',
};

describe.skipIf(!hasCorpus)('the command of every run_results in the corpus', () => {
  const files = corpusArtifacts().filter((f) => f.endsWith('run_results.json'));

  it('is named as typed: docs generate (also through dbt-rpc), never generate or rpc', () => {
    let seen = 0;
    for (const file of files) {
      const buf = readFileSync(file);
      const args = (JSON.parse(buf.toString('utf8')) as { args?: { which?: string; rpc_method?: string } }).args;
      // The method a job server ran, where it says one; `which` can say `run` for a docs.generate.
      const raw = args?.rpc_method ?? args?.which;
      if (raw === undefined || !(raw in TYPED)) continue;
      const extracted = extractRunResults(buf, { acceptNewerSchema: true, invocationId: 'corpus' });
      expect(extracted.invocation.command, file).toBe(TYPED[raw]);
      seen++;
    }
    expect(seen).toBeGreaterThan(100);
  });
});

describe.skipIf(!hasCorpus)("an invocation of dbt 1.x or before that wrote a catalog.json (only docs generate does; Fusion's compile does too)", () => {
  const withCatalog = corpusArtifacts()
    .filter((f) => f.endsWith('run_results.json'))
    .filter((file) => {
      const catalog = path.join(path.dirname(file), 'catalog.json');
      return (
        existsSync(catalog) &&
        typeof invocationIdOf(file) === 'string' &&
        invocationIdOf(catalog) === invocationIdOf(file) &&
        !dbtVersionOf(file).startsWith('2.')
      );
    });

  it('is a docs generate from its run_results alone, whatever which says (rpc, run)', () => {
    const whiches = new Set(withCatalog.map((file) => (JSON.parse(readFileSync(file, 'utf8')) as { args: { which: string } }).args.which));
    expect([...whiches]).toEqual(expect.arrayContaining(['rpc', 'run', 'generate']));
    for (const file of withCatalog) {
      expect(extractRunResults(readFileSync(file), { acceptNewerSchema: true }).invocation.command, file).toBe('docs generate');
    }
  });
});

function dbtVersionOf(file: string): string {
  return String((JSON.parse(readFileSync(file, 'utf8')) as { metadata?: { dbt_version?: unknown } }).metadata?.dbt_version);
}

function invocationIdOf(file: string): unknown {
  return (JSON.parse(readFileSync(file, 'utf8')) as { metadata?: { invocation_id?: unknown } }).metadata?.invocation_id;
}

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

  it('of an rpc run_results beside a catalog is docs generate: the catalog says what rpc does not', () => {
    const results = extractRunResults(bytes({ metadata: syntheticMetadata('run-results', 4), results: [], elapsed_time: 1, args: { which: 'rpc' } }));
    const catalog = extractCatalog(bytes({ metadata: syntheticMetadata('catalog', 1), nodes: {}, sources: {}, errors: null }));
    expect(results.invocation.command).toBe('rpc');
    expect(
      mergeInvocationFacts([
        { from: 'run_results', facts: results.invocation },
        { from: 'catalog', facts: catalog.invocation },
      ]).command,
    ).toBe('docs generate');
  });
});
