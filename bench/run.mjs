// `npm run bench`: every benchmark, one after another (they would fight over two cores), each
// printing its measurements and whether it meets its goal. Exit status 1 when a goal is missed.
import { existsSync } from 'node:fs';

const benches = [
  ['./capture-dedup.mjs', 'benchCaptureDedup'],
  ['./ingest-history.mjs', 'benchIngestHistory'],
  ['./extract-large.mjs', 'benchExtractLarge'],
  ['./sql-normalize.mjs', 'benchSqlNormalize'],
];

const only = process.argv.slice(2);
let missed = 0;
for (const [file, fn] of benches) {
  if (only.length && !only.some((name) => file.includes(name))) continue;
  if (!existsSync(new URL(file, import.meta.url))) continue;
  const mod = await import(file);
  if (typeof mod[fn] !== 'function') continue;
  const result = await mod[fn]();
  console.log(JSON.stringify(result, null, 2));
  if (result.pass === false) missed++;
}
if (missed) {
  console.error(`${missed} benchmark goal(s) missed`);
  process.exitCode = 1;
}
