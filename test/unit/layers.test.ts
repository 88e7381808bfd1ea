import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * Layers point one way (README, Architecture). This reads every import under src/ and fails on
 * an edge the table below does not allow: the archive knows nothing of DuckDB, extract stays
 * pure, capture never touches the store, and nothing but cli imports cli.
 */
const SRC = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../src');
const BOTTOM = ['errors', 'vocab', 'json'];
const ALLOWED: Record<string, string[]> = {
  errors: [],
  vocab: ['errors'],
  json: [],
  archive: BOTTOM,
  extract: BOTTOM,
  config: BOTTOM,
  capture: [...BOTTOM, 'archive', 'extract', 'config'],
  state: [...BOTTOM, 'archive', 'extract'],
  store: [...BOTTOM, 'archive', 'extract', 'config'],
  plan: [...BOTTOM, 'archive', 'config', 'store'],
  report: [...BOTTOM, 'archive', 'config', 'store'],
  retention: [...BOTTOM, 'archive', 'extract', 'state'],
  // The dataset is derived from the store, written through the archive's backends.
  export: [...BOTTOM, 'archive', 'config', 'store'],
  cli: [...BOTTOM, 'archive', 'extract', 'config', 'capture', 'state', 'store', 'plan', 'retention', 'mcp', 'report', 'export'],
  // A second front end: it puts agents' questions to cli's own program, which loads it only for `dbtattic mcp`.
  mcp: [...BOTTOM, 'cli'],
};

function layerOf(file: string): string {
  const relative = path.relative(SRC, file).split(path.sep);
  return relative.length === 1 ? relative[0]!.replace(/\.(ts|js)$/, '') : relative[0]!;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    return statSync(full).isDirectory() ? sourceFiles(full) : name.endsWith('.ts') ? [full] : [];
  });
}

function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  return [...text.matchAll(/(?:from|import)\s*\(?\s*['"](\.[^'"]+)['"]/g)].map((m) => path.resolve(path.dirname(file), m[1]!));
}

describe('layers', () => {
  const edges = sourceFiles(SRC).flatMap((file) => importsOf(file).map((target) => ({ file, from: layerOf(file), to: layerOf(target) })));

  it('every folder under src/ has a place in the table', () => {
    expect([...new Set(edges.map((e) => e.from))].filter((layer) => !(layer in ALLOWED))).toEqual([]);
  });

  it('no import points back up', () => {
    const backEdges = edges
      .filter((e) => e.from !== e.to && !(ALLOWED[e.from] ?? []).includes(e.to))
      .map((e) => `${path.relative(SRC, e.file)} imports ${e.to}`);
    expect(backEdges).toEqual([]);
  });

  it('only the store imports DuckDB', () => {
    const duck = sourceFiles(SRC).filter((f) => /@duckdb\/node-api/.test(readFileSync(f, 'utf8')) && layerOf(f) !== 'store');
    expect(duck.map((f) => path.relative(SRC, f))).toEqual([]);
  });
});
