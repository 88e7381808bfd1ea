import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createFingerprintContext, type FingerprintManifest } from '../../../src/extract/fingerprint-context.js';
import { describeFingerprint, fingerprintNode, type FingerprintInput } from '../../../src/extract/node-fingerprint.js';
import { dialectFor, type SqlDialect } from '../../../src/extract/sql-dialect.js';
import { normalizeSql } from '../../../src/extract/sql-tokens.js';
import { corpusArtifacts, hasCorpus } from '../../helpers/corpus.js';

interface CorpusManifest extends FingerprintManifest {
  nodes?: Record<string, FingerprintInput>;
}

const manifests = corpusArtifacts()
  .filter((file) => path.basename(file) === 'manifest.json')
  .map((file) => ({ file, manifest: JSON.parse(readFileSync(file, 'utf8')) as CorpusManifest }));

function sqlOf(node: FingerprintInput): string | null {
  if (node.resource_type === 'seed' || node.language === 'python') return null;
  const code = node.raw_code ?? node.raw_sql;
  return typeof code === 'string' ? code : null;
}

/** Every distinct SQL text of the corpus (models, tests, macros…) with the dialect it was written for. */
function distinctSql(): [string, SqlDialect][] {
  const seen = new Map<string, SqlDialect>();
  for (const { manifest } of manifests) {
    const dialect = dialectFor(manifest.metadata?.adapter_type);
    const texts = [...Object.values(manifest.nodes ?? {}).map(sqlOf), ...Object.values(manifest.macros ?? {}).map((macro) => macro.macro_sql)];
    for (const text of texts) if (typeof text === 'string') seen.set(`${dialect.adapter}\u0000${text}`, dialect);
  }
  return [...seen].map(([key, dialect]) => [key.slice(key.indexOf('\u0000') + 1), dialect]);
}

describe.skipIf(!hasCorpus)('fingerprints over the real-artifact corpus', () => {
  it('fingerprints every node of every manifest', () => {
    let nodes = 0;
    for (const { manifest } of manifests) {
      const context = createFingerprintContext(manifest);
      for (const node of Object.values(manifest.nodes ?? {})) {
        expect(fingerprintNode(node, context)).toMatch(/^[0-9a-f]{64}$/);
        nodes += 1;
      }
    }
    expect(manifests.length).toBeGreaterThan(100);
    expect(nodes).toBeGreaterThan(10_000);
  });

  it('gives every SQL text a normal form that is a fixed point and ignores added comments', () => {
    const failures: string[] = [];
    for (const [sql, dialect] of distinctSql()) {
      const once = normalizeSql(sql, dialect);
      const commented = normalizeSql(`/* dbtattic */\n${sql}\n-- dbtattic\n`, dialect);
      if (normalizeSql(once, dialect) !== once || commented !== once) failures.push(`${dialect.adapter}: ${sql.slice(0, 120)}`);
    }
    expect(failures).toEqual([]);
  });

  it('gives identical raw code in one sequence folder an identical code hash', () => {
    const bySequence = new Map<string, typeof manifests>();
    for (const entry of manifests) {
      const folder = path.dirname(path.dirname(entry.file));
      bySequence.set(folder, [...(bySequence.get(folder) ?? []), entry]);
    }
    let compared = 0;
    for (const entries of bySequence.values()) {
      const seen = new Map<string, string | null>();
      for (const { manifest } of entries) {
        const context = createFingerprintContext(manifest);
        for (const node of Object.values(manifest.nodes ?? {})) {
          const sql = sqlOf(node);
          if (sql === null) continue;
          const key = `${context.dialect.adapter}\u0000${sql}`;
          const hash = describeFingerprint(node, context).code.hash;
          if (seen.has(key)) {
            expect(hash).toBe(seen.get(key));
            compared += 1;
          } else seen.set(key, hash);
        }
      }
    }
    expect(compared).toBeGreaterThan(1_000);
  });
});
