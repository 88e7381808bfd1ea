#!/usr/bin/env node
/**
 * Extract alone on a large manifest: time and peak RSS. The corpus has no manifest over a few
 * MB, so one is made by scaling a real one up: its nodes are copied under new unique_ids until
 * the file reaches the target size (the copies are ours, not dbt's). Without the corpus the seed
 * is a synthetic node, and the output says so.
 *
 * The extraction runs in a child process, so its peak RSS is extract's alone, not the builder's.
 * Needs a build (imports dist/). Usage: node bench/extract-large.mjs [--mb 500] [--keep]
 * Prints one JSON line on stdout; progress goes to stderr.
 */
import { spawnSync } from 'node:child_process';
import { closeSync, existsSync, mkdtempSync, openSync, readFileSync, rmSync, statSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const CORPUS_DIR = process.env.DBTATTIC_CORPUS ?? path.resolve(here, '../../shared/corpus');
const SEED = path.join(CORPUS_DIR, 'fivetran-hubspot/docs-history/12_2026-06-22_be3a903c_1.11.11-postgres/manifest.json');
const RSS_LIMIT_MB = 1536;

function option(name, fallback) {
  const at = process.argv.indexOf(name);
  return at === -1 ? fallback : process.argv[at + 1];
}

function readSeed() {
  if (existsSync(SEED)) return { origin: path.relative(CORPUS_DIR, SEED), manifest: JSON.parse(readFileSync(SEED, 'utf8')) };
  const node = {
    resource_type: 'model', unique_id: 'model.synthetic.m', name: 'm', package_name: 'synthetic',
    raw_code: `select ${'column_name, '.repeat(200)}1 from {{ ref('other') }}`, config: { materialized: 'table' },
    depends_on: { nodes: ['model.synthetic.other'], macros: [] },
  };
  const metadata = { dbt_schema_version: 'https://schemas.getdbt.com/dbt/manifest/v12.json', project_name: 'synthetic' };
  return { origin: 'synthetic', manifest: { metadata, nodes: { [node.unique_id]: node }, macros: {} } };
}

/** Streams the scaled manifest to `file`: memory stays near one seed, whatever the target. */
function writeScaledManifest(file, targetBytes, seed) {
  const fd = openSync(file, 'w');
  let size = 0;
  const write = (text) => {
    size += writeSync(fd, text);
  };
  const { nodes, metadata, ...rest } = seed;
  write(`{"metadata": ${JSON.stringify({ ...metadata, invocation_id: 'bench-scaled-manifest' })}, "nodes": {`);
  const entries = Object.entries(nodes);
  let count = 0;
  for (let copy = 0; size < targetBytes; copy++) {
    for (const [id, node] of entries) {
      const uniqueId = copy === 0 ? id : `${id}_copy${copy}`;
      write(`${count++ ? ',' : ''}\n${JSON.stringify(uniqueId)}: ${JSON.stringify({ ...node, unique_id: uniqueId })}`);
    }
  }
  write('}');
  for (const [key, value] of Object.entries(rest)) write(`,\n${JSON.stringify(key)}: ${JSON.stringify(value)}`);
  write('}\n');
  closeSync(fd);
  return { bytes: size, nodes: count };
}

async function runChild(file) {
  const { extractManifest } = await import('../dist/extract/index.js');
  const started = process.hrtime.bigint();
  const buf = readFileSync(file);
  const extract = extractManifest(buf);
  const rows = { node_version: 0, node_invocation: 0, node_depends_on: 0, macro_version: 0, macro_invocation: 0 };
  for (const entry of extract.entries()) {
    rows[`${entry.kind}_version`]++;
    rows[`${entry.kind}_invocation`]++;
    if (entry.kind === 'node') rows.node_depends_on += entry.dependsOn.length;
  }
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  const peakRssMb = Math.round(process.resourceUsage().maxRSS / 1024);
  process.stdout.write(`${JSON.stringify({ seconds: Number(seconds.toFixed(2)), peakRssMb, rows })}\n`);
}

async function main() {
  const targetMb = Number(option('--mb', '500'));
  const dir = mkdtempSync(path.join(tmpdir(), 'dbtattic-bench-'));
  const file = path.join(dir, 'manifest.json');
  try {
    const seed = readSeed();
    process.stderr.write(`building a ${targetMb} MB manifest from ${seed.origin} in ${dir}\n`);
    const built = writeScaledManifest(file, targetMb * 1024 * 1024, seed.manifest);
    process.stderr.write(`built ${(statSync(file).size / 1048576).toFixed(0)} MB, ${built.nodes} nodes; extracting\n`);
    const child = spawnSync(process.execPath, [fileURLToPath(import.meta.url), '--child', file], { encoding: 'utf8', maxBuffer: 1 << 20 });
    if (child.status !== 0) throw new Error(`extraction failed:\n${child.stderr}`);
    const measured = JSON.parse(child.stdout);
    const result = { bench: 'extract-large', seed: seed.origin, manifestMb: Math.round(built.bytes / 1048576), nodes: built.nodes, ...measured, rssLimitMb: RSS_LIMIT_MB, withinLimit: measured.peakRssMb <= RSS_LIMIT_MB };
    process.stdout.write(`${JSON.stringify(result)}\n`);
    if (!result.withinLimit) process.exitCode = 1;
  } finally {
    if (!process.argv.includes('--keep')) rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv.includes('--child')) await runChild(option('--child'));
else await main();
