// Throughput of the SQL normal form (src/extract/sql-tokens.ts) over the real code of the corpus:
// every node's raw code and every distinct macro, each with the dialect of its manifest.
// Run after `npm run build`: node bench/sql-normalize.mjs [rounds]
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { dialectFor } from '../dist/extract/sql-dialect.js';
import { normalizeSql } from '../dist/extract/sql-tokens.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const corpus = process.env.DBTATTIC_CORPUS ?? path.resolve(here, '../../shared/corpus');
const rounds = Number(process.argv[2] ?? 5);

function findManifests(dir) {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) return findManifests(full);
    return name === 'manifest.json' ? [full] : [];
  });
}

/** Distinct texts per dialect, so a macro shipped in fifty manifests is timed once. */
function collectTexts(manifests, pick) {
  const texts = new Map();
  for (const manifest of manifests) {
    const dialect = dialectFor(manifest.metadata?.adapter_type);
    for (const text of pick(manifest)) {
      if (typeof text === 'string') texts.set(`${dialect.adapter}\u0000${text}`, [text, dialect]);
    }
  }
  return [...texts.values()];
}

function measure(label, texts) {
  const bytes = texts.reduce((sum, [text]) => sum + Buffer.byteLength(text), 0);
  for (const [text, dialect] of texts) normalizeSql(text, dialect); // warm-up
  const started = process.hrtime.bigint();
  const cpuStarted = process.cpuUsage();
  for (let round = 0; round < rounds; round += 1) {
    for (const [text, dialect] of texts) normalizeSql(text, dialect);
  }
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  const cpu = process.cpuUsage(cpuStarted);
  const cpuSeconds = (cpu.user + cpu.system) / 1e6;
  const megabytes = (bytes * rounds) / 1e6;
  // CPU time includes the garbage collector's helper threads; wall time suffers on a busy machine.
  console.log(
    `${label}: ${texts.length} texts, ${(bytes / 1e6).toFixed(2)} MB, ` +
      `${(megabytes / seconds).toFixed(1)} MB/s wall, ${(megabytes / cpuSeconds).toFixed(1)} MB/s per CPU second (${rounds} rounds)`,
  );
}

const manifests = findManifests(corpus).map((file) => JSON.parse(readFileSync(file, 'utf8')));
const nodeCode = (m) => Object.values(m.nodes ?? {}).map((node) => node.raw_code ?? node.raw_sql);
const macroCode = (m) => Object.values(m.macros ?? {}).map((macro) => macro.macro_sql);
console.log(`sql-normalize: ${manifests.length} manifests from ${corpus}`);
measure('node raw code', collectTexts(manifests, nodeCode));
measure('macro sql', collectTexts(manifests, macroCode));

// Hostile code (issue 9): many comments used to cost a search to the end of the code each
// (3 MB: 7 s). Linear means 3 MB costs about ten times 0.3 MB; the goal allows 20 for noise.
function seconds(code, dialect) {
  const started = process.hrtime.bigint();
  normalizeSql(code, dialect);
  return Number(process.hrtime.bigint() - started) / 1e9;
}
const postgres = dialectFor('postgres');
for (const [label, unit] of [
  ['line comments', '-- a comment\nselect a from b\n'],
  ['block comments', "/* c */ select 'x'\n"],
]) {
  const sized = (bytes) => unit.repeat(Math.ceil(bytes / unit.length));
  const small = seconds(sized(300_000), postgres);
  const large = seconds(sized(3_000_000), postgres);
  console.log(
    JSON.stringify({
      bench: `3 MB of ${label}`,
      seconds: Number(large.toFixed(3)),
      ratio_to_300kb: Number((large / small).toFixed(1)),
      pass: large / small < 20,
    }),
  );
}
