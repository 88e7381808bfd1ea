import { describe, expect, it } from 'vitest';
import { MAX_JSON_DEPTH, objectMembers, scanDocument, sectionMembers } from '../../../src/json/scan.js';

/**
 * The check of a whole document keeps where each member of its top-level objects lies, so that
 * ingest does not walk a 50 MB manifest's nodes a second time. What it keeps must be what a walk
 * of the same range finds, keys included, and limits must hold as before.
 */
const nodeText = (i: number): string =>
  JSON.stringify({ unique_id: `model.p.m${i}`, raw_code: `select ${i} -- ${'x'.repeat(2000)}`, depends_on: { nodes: [] } });

/** Over the 1 MiB under which bytes are not worth keeping (json/bytes-memo.ts). */
function largeManifest(extraKeys: string[] = []): Buffer {
  const nodes = Array.from({ length: 600 }, (_, i) => `${JSON.stringify(`model.p.m${i}`)}: ${nodeText(i)}`);
  for (const key of extraKeys) nodes.push(`${JSON.stringify(key)}: {"unique_id": ${JSON.stringify(key)}}`);
  return Buffer.from(
    `{"metadata": {"dbt_schema_version": "https://schemas.getdbt.com/dbt/manifest/v12.json"}, "nodes": {${nodes.join(', ')}}, "macros": {}, "parent_map": {"a": ["b"]}, "semantic_models": null, "exposures" : { "e" : 1 } }`,
  );
}

describe('the members of top-level sections, kept by the whole-document scan', () => {
  it('are what a walk of the section finds, for every object-valued section', () => {
    const buf = largeManifest();
    const sections = scanDocument(buf);
    expect(sections.map((s) => s.key)).toEqual(['metadata', 'nodes', 'macros', 'parent_map', 'semantic_models', 'exposures']);
    for (const section of sections) {
      const kept = sectionMembers(buf, section);
      if (section.key === 'semantic_models') expect(kept).toBeUndefined();
      else expect(kept).toEqual([...objectMembers(buf, section.start, section.end)]);
    }
    expect(sectionMembers(buf, sections[1]!)).toHaveLength(600);
    // And each member's range holds the node as dbt wrote it.
    const first = sectionMembers(buf, sections[1]!)![0]!;
    expect(JSON.parse(buf.toString('utf8', first.start, first.end))).toEqual(JSON.parse(nodeText(0)));
  });

  it('decode keys with escapes and non-ASCII as JSON.parse does', () => {
    const keys = ['model.p.quote"d', 'model.p.back\\slash', 'model.p.é', 'model.p.\u2028', 'model.p.tab\t'];
    const buf = largeManifest(keys);
    const nodes = scanDocument(buf).find((s) => s.key === 'nodes')!;
    expect(
      sectionMembers(buf, nodes)!
        .slice(600)
        .map((m) => m.key),
    ).toEqual(keys);
  });

  it('are not kept for a range that is not a top-level section, or for a small document', () => {
    const buf = largeManifest();
    const nodes = scanDocument(buf).find((s) => s.key === 'nodes')!;
    const member = sectionMembers(buf, nodes)![0]!;
    expect(sectionMembers(buf, member)).toBeUndefined();
    expect(sectionMembers(buf, { start: nodes.start, end: nodes.end - 1 })).toBeUndefined();
    const small = Buffer.from('{"nodes": {"a": {}}}');
    expect(sectionMembers(small, scanDocument(small)[0]!)).toBeUndefined();
  });

  it('refuses a key with a raw control character, as JSON does', () => {
    const buf = Buffer.from('{"nodes": {"a\u0001b": {}}}');
    expect(() => scanDocument(buf)).toThrow(SyntaxError);
  });

  it('count nesting from the top of the document, as the walk of a whole section did', () => {
    const nested = (levels: number): Buffer => Buffer.from(`{"nodes": {"a": ${'['.repeat(levels)}1${']'.repeat(levels)}}}`);
    // The section itself is one level: a value MAX_JSON_DEPTH - 1 deep inside it is the deepest read.
    expect(() => scanDocument(nested(MAX_JSON_DEPTH - 1))).not.toThrow();
    expect(() => scanDocument(nested(MAX_JSON_DEPTH))).toThrow(/nested more than 256 levels deep/);
  });
});
