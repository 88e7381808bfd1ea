import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * Layers point one way (ARCHITECTURE.md). This reads every import under src/ and fails on
 * an edge the tables below do not allow: the archive knows nothing of DuckDB, extract stays
 * pure, capture never touches the store, and nothing but cli imports cli. Inside the store, its
 * rooms (src/store/index.ts) point one way too; and no module reaches itself through its imports.
 */
const SRC = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../src');
const BOTTOM = ['errors', 'vocab', 'json', 'answers'];
const ALLOWED: Record<string, string[]> = {
  errors: [],
  // The shapes of what dbtattic answers, types only: the VS Code extension imports them as they are.
  answers: [],
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
  // The questions both front ends ask, each a typed answer.
  app: [...BOTTOM, 'archive', 'extract', 'config', 'capture', 'state', 'store', 'plan', 'retention'],
  cli: [...BOTTOM, 'archive', 'extract', 'config', 'capture', 'state', 'store', 'plan', 'retention', 'report', 'export', 'app'],
  // A second front end beside cli, on the same app core; cli loads it only for `dbtattic mcp`.
  mcp: [...BOTTOM, 'archive', 'config', 'app'],
};
/** Edges allowed only as a load when called (`await import(…)`), never as an import: cli starts mcp's server. */
const LOADED: Record<string, string[]> = { cli: ['mcp'] };

/** The store's rooms, and the rooms each may import; 'store' is its face, index.ts. */
const STORE_ROOMS: Record<string, string[]> = {
  'store/db': [],
  'store/ingest': ['store/db'],
  'store/derived': ['store/db'],
  'store/sync': ['store/db', 'store/ingest', 'store/derived'],
  'store/read': ['store/db', 'store/derived'],
  store: ['store/db', 'store/ingest', 'store/derived', 'store/sync', 'store/read'],
};
// Beside index.ts, not in db/, only because each finds files by its own place (vendor/, schema/)
// at the depth the bundle shares (scripts/bundle-cli.mjs); they belong to db.
const IN_DB = ['store/duckdb.ts', 'store/schema.ts'];

/** 'archive', 'cli', … or, inside the store, its room ('store/db', …). */
function layerOf(file: string): string {
  const relative = path.relative(SRC, file).split(path.sep);
  if (relative.length === 1) return relative[0]!.replace(/\.(ts|js)$/, '');
  if (relative[0] !== 'store') return relative[0]!;
  if (IN_DB.includes(relative.join('/').replace(/\.js$/, '.ts'))) return 'store/db';
  return relative.length === 2 ? 'store' : `store/${relative[1]}`;
}

const topOf = (layer: string): string => layer.split('/')[0]!;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    return statSync(full).isDirectory() ? sourceFiles(full) : name.endsWith('.ts') ? [full] : [];
  });
}

/** Every relative import, static or a load when called (`import('./x.js')`), as the .ts file it names. */
function importsOf(file: string): { target: string; loaded: boolean }[] {
  const text = readFileSync(file, 'utf8');
  return [...text.matchAll(/(?:from|import)\s*(\(?)\s*['"](\.[^'"]+)['"]/g)].map((m) => ({ target: asSource(file, m[2]!), loaded: m[1] === '(' }));
}

/** Only `import … from` and `export … from`, types too: what a module needs before it runs, or to be read. */
function staticImportsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  return [...text.matchAll(/^(?:import|export)\s[^;]*?\bfrom\s*['"](\.[^'"]+)['"]/gms)].map((m) => asSource(file, m[1]!));
}

const asSource = (file: string, specifier: string): string => path.resolve(path.dirname(file), specifier).replace(/\.js$/, '.ts');

/** Each circle of the graph, once, as `a.ts -> b.ts -> a.ts`: a depth-first search that meets a module still on its path. */
function circlesOf(graph: Map<string, string[]>, name: (node: string) => string = (node) => node): string[] {
  const state = new Map<string, 'open' | 'done'>();
  const trail: string[] = [];
  const circles: string[] = [];
  const visit = (node: string): void => {
    state.set(node, 'open');
    trail.push(node);
    for (const next of graph.get(node) ?? []) {
      if (state.get(next) === 'open') circles.push([...trail.slice(trail.indexOf(next)), next].map(name).join(' -> '));
      else if (!state.has(next) && graph.has(next)) visit(next);
    }
    trail.pop();
    state.set(node, 'done');
  };
  for (const node of graph.keys()) if (!state.has(node)) visit(node);
  return circles;
}

/** May `from` import (or load) `to`? Across layers the tables above decide; inside the store, its rooms. */
function allowed(from: string, to: string, loaded: boolean): boolean {
  if (from === to) return true;
  if (topOf(from) !== topOf(to)) return [...(ALLOWED[topOf(from)] ?? []), ...(loaded ? (LOADED[topOf(from)] ?? []) : [])].includes(topOf(to));
  return from in STORE_ROOMS ? STORE_ROOMS[from]!.includes(to) : false;
}

describe('layers', () => {
  const files = sourceFiles(SRC);
  const edges = files.flatMap((file) => importsOf(file).map(({ target, loaded }) => ({ file, from: layerOf(file), to: layerOf(target), loaded })));

  it('every folder under src/ and every room of the store has a place in the tables', () => {
    const unplaced = [...new Set(edges.map((e) => e.from))].filter(
      (layer) => !(topOf(layer) in ALLOWED) || (topOf(layer) === 'store' && !(layer in STORE_ROOMS)),
    );
    expect(unplaced).toEqual([]);
  });

  it('the tables themselves point one way: no layer, and no room, reaches itself', () => {
    const table = (allowances: Record<string, string[]>) => new Map(Object.entries(allowances));
    expect(circlesOf(table(ALLOWED))).toEqual([]);
    expect(circlesOf(table(STORE_ROOMS))).toEqual([]);
  });

  it('no import points back up', () => {
    const backEdges = edges
      .filter((e) => !allowed(e.from, e.to, e.loaded))
      .map((e) => `${path.relative(SRC, e.file)} (${e.from}) ${e.loaded ? 'loads' : 'imports'} ${e.to}`);
    expect(backEdges).toEqual([]);
  });

  it('no circle of imports, anywhere under src/', () => {
    const graph = new Map(files.map((file) => [file, staticImportsOf(file)]));
    expect(graph.size).toBeGreaterThan(100);
    expect(circlesOf(graph, (file) => path.relative(SRC, file))).toEqual([]);
  });

  it('the circle search finds a circle, and names it', () => {
    const graph = new Map([
      ['a', ['b']],
      ['b', ['c']],
      ['c', ['a', 'd']],
      ['d', []],
    ]);
    expect(circlesOf(graph)).toEqual(['a -> b -> c -> a']);
  });

  it('the rules refuse an edge back up: a room below reading one above, the store a feature, cli importing mcp', () => {
    expect(allowed('store/db', 'store/read', false)).toBe(false);
    expect(allowed('store/ingest', 'store/sync', false)).toBe(false);
    expect(allowed('store/read', 'store', false)).toBe(false);
    expect(allowed('store/read', 'plan', false)).toBe(false);
    expect(allowed('cli', 'mcp', false)).toBe(false);
    expect(allowed('cli', 'mcp', true)).toBe(true);
  });

  it('only the store imports DuckDB', () => {
    const duck = files.filter((f) => /@duckdb\/node-api/.test(readFileSync(f, 'utf8')) && topOf(layerOf(f)) !== 'store');
    expect(duck.map((f) => path.relative(SRC, f))).toEqual([]);
  });
});
