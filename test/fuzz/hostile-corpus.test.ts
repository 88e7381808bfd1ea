import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { collectingIo } from '../../src/cli/io.js';
import { corpusArtifacts, hasCorpus } from '../helpers/corpus.js';
import { MUTATIONS, mutate, seededRandom } from './mutations.js';

/**
 * Mutated real artifacts through capture, ingest and every reading command, in-process (a CLI
 * process start per command would cost more than the work): no internal error (exit 70), no
 * command past a time bound, and the archive verifies after each. `npm test` runs a seeded
 * sample; `npm run fuzz` (DBTATTIC_FUZZ_COUNT, DBTATTIC_FUZZ_SEED) runs thousands.
 */
const COUNT = Number(process.env.DBTATTIC_FUZZ_COUNT ?? 30);
const SEED = Number(process.env.DBTATTIC_FUZZ_SEED ?? 9);
/** Far above what any command takes on these small artifacts; a hang, not a slow machine, crosses it. */
const COMMAND_BOUND_MS = 60_000;
const MAX_SOURCE_BYTES = 300_000;

const READS = (id: string): string[][] => [
  ['history', '--json'],
  ['info', '--json'],
  ['inspect', id, '--json'],
  ['diff', id, id, '--json'],
  ['query', 'select count(*) from node', '--json'],
  ['state', '--last-success', '--json'],
  ['verify', '--json'],
];

interface Outcome {
  exitCode: number;
  stdout: string;
  stderr: string;
}

async function cli(cwd: string, args: string[]): Promise<Outcome> {
  const { io, printed } = collectingIo(cwd, { DBTATTIC_STORE_MEMORY_LIMIT: '64MB' });
  let timer: NodeJS.Timeout | undefined;
  const bound = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`dbtattic ${args.join(' ')} ran past ${COMMAND_BOUND_MS} ms`)), COMMAND_BOUND_MS);
  });
  try {
    const exitCode = await Promise.race([main(args, io), bound]);
    return { exitCode, ...printed() };
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Rounds run in blocks, each on an archive of its own: every round verifies the whole archive
 * and reads the history, so on one archive the rounds cost more and more (3,000 rounds had done
 * about 200 after 12 minutes). The mutations follow one seeded sequence across the blocks.
 */
const ROUNDS_PER_ARCHIVE = 100;

describe.skipIf(!hasCorpus)(`${COUNT} mutated corpus artifacts (seed ${SEED})`, () => {
  const sources = hasCorpus ? corpusArtifacts().filter((file) => statSync(file).size <= MAX_SOURCE_BYTES) : [];
  const random = seededRandom(SEED);
  const blocks = Array.from(
    { length: Math.ceil(COUNT / ROUNDS_PER_ARCHIVE) },
    (_, i) => [i * ROUNDS_PER_ARCHIVE, Math.min(COUNT, (i + 1) * ROUNDS_PER_ARCHIVE)] as const,
  );

  it.each(blocks)(
    'rounds %i to %i never end in an internal error, never hang, and the archive always verifies',
    async (from, to) => {
      const dir = mkdtempSync(path.join(os.tmpdir(), 'attic-fuzz-'));
      const target = path.join(dir, 'target');
      writeFileSync(path.join(dir, 'dbt_project.yml'), 'name: fuzz\nversion: "1.0"\nprofile: fuzz\n');
      try {
        for (let round = from; round < to; round++) await fuzzRound(dir, target, round, sources, random);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
    ROUNDS_PER_ARCHIVE * COMMAND_BOUND_MS,
  );
});

async function fuzzRound(dir: string, target: string, round: number, sources: string[], random: () => number): Promise<void> {
  const source = sources[Math.floor(random() * sources.length)]!;
  const mutation = MUTATIONS[Math.floor(random() * MUTATIONS.length)]!;
  const label = `round ${round}: ${mutation} of ${path.relative(path.dirname(path.dirname(source)), source)}`;
  rmSync(target, { recursive: true, force: true });
  mkdirSync(target);
  writeFileSync(path.join(target, path.basename(source)), mutate(readFileSync(source), mutation, random));

  const capture = await cli(dir, ['capture', '--json']);
  expect([0, 1], `${label}: capture ${capture.stderr}`).toContain(capture.exitCode);
  const captured = (JSON.parse(capture.stdout) as { artifacts: { invocation_id: string | null }[] }).artifacts.find((a) => a.invocation_id);
  const id = captured?.invocation_id ?? 'none';
  for (const args of READS(id.slice(0, 36))) {
    const read = await cli(dir, args);
    expect(read.exitCode, `${label}: ${args.join(' ')}: ${read.stderr}`).not.toBe(70);
    if (args[0] === 'verify') expect(read.exitCode, `${label}: verify ${read.stdout}`).toBe(0);
  }
}
