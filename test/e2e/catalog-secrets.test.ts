import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CliResult } from '../helpers/cli.js';
import { replayStepAsync, startReplay, type ReplayedHistory } from '../helpers/replay.js';
import { startFakeServer, type FakeServer, type Handler } from '../unit/capture/catalog/fake-server.js';

/**
 * The data side of the triplet through `dbtattic run`: a loopback Nessie that wants a bearer
 * token, named in dbtattic.yml and given in the environment. Whatever happens (a snapshot read,
 * a server echoing the token back, a server that never answers, a URI carrying the token), the
 * token must appear in no file of the store and in no output of any command.
 */
const SECRET = `s3cr3t-${randomBytes(12).toString('hex')}`;
const FORMS = [SECRET, Buffer.from(SECRET).toString('base64')];
const HASHES = ['2e1cfa82b035c26cbbbdae632cea070514eb8b773f616aaeaf668e2f0be8f10d', '9c0ffee5b035c26cbbbdae632cea070514eb8b773f616aaeaf668e2f0be8f10d'];

interface InvocationJson {
  invocation: {
    catalog_provider: string | null;
    catalog_status: string | null;
    catalog_snapshot_id: string | null;
    catalog_atomic: boolean | null;
    catalog_detail: { reason?: string } | null;
    run_exit_code: number;
  };
}

let replay: ReplayedHistory;
let nessie: FakeServer;
let hanging: FakeServer;
let snapshots = 0;
/** Every stdout and stderr of every command, searched for the secret at the end. */
const outputs: CliResult[] = [];

/** Answers as Nessie's API v2 does; a wrong token or an unknown reference gets an error page quoting the Authorization header. */
const nessieHandler: Handler = (request) => {
  if (request.url === '/api/v2/trees/main' && request.authorization === `Bearer ${SECRET}`) {
    return { body: { reference: { type: 'BRANCH', name: 'main', hash: HASHES[Math.min(snapshots++, 1)] } } };
  }
  return { status: request.url === '/api/v2/trees/main' ? 401 : 404, body: { message: `refused: you sent '${request.authorization ?? ''}'` } };
};

beforeAll(async () => {
  replay = startReplay();
  nessie = await startFakeServer(nessieHandler);
  hanging = await startFakeServer(() => 'hang');
}, 60_000);
afterAll(async () => {
  await Promise.all([nessie?.close(), hanging?.close()]);
  replay?.remove();
});

function configure(catalog: string): void {
  writeFileSync(path.join(replay.project, 'dbtattic.yml'), `catalog: {provider: nessie, ${catalog}, token_env: NESSIE_TOKEN}\n`);
}

async function runStep(n: number): Promise<CliResult> {
  const result = await replayStepAsync(replay, replay.step(n), { NESSIE_TOKEN: SECRET });
  outputs.push(result);
  return result;
}

function attic(args: string[]): CliResult {
  const result = replay.attic(args, { NESSIE_TOKEN: SECRET });
  outputs.push(result);
  return result;
}

function inspect(n: number): InvocationJson['invocation'] {
  const result = attic(['inspect', replay.step(n).invocation_id, '--json']);
  expect(result.exitCode).toBe(0);
  return (JSON.parse(result.stdout) as InvocationJson).invocation;
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => path.join(e.parentPath, e.name));
}

describe('a Nessie catalog that wants a bearer token', () => {
  it('records the snapshot hash with each run, and a change of data between runs', async () => {
    configure(`uri: '${nessie.url}', ref: main`);
    expect(await runStep(1)).toMatchObject({ exitCode: 0 });
    expect(nessie.seen.map((r) => [r.url, r.authorization])).toEqual([['/api/v2/trees/main', `Bearer ${SECRET}`]]);
    expect(inspect(1)).toMatchObject({ catalog_provider: 'nessie', catalog_status: 'ok', catalog_snapshot_id: HASHES[0], catalog_atomic: true });

    expect(await runStep(2)).toMatchObject({ exitCode: 0 });
    expect(inspect(2)).toMatchObject({ catalog_status: 'ok', catalog_snapshot_id: HASHES[1] });
    const diff = attic(['diff', replay.step(1).invocation_id, replay.step(2).invocation_id, '--json']);
    expect(JSON.parse(diff.stdout)).toMatchObject({ catalog: { from: HASHES[0], to: HASHES[1], changed: true } });
    expect(attic(['diff', replay.step(1).invocation_id, replay.step(2).invocation_id]).stdout).toContain(`snapshot ${HASHES[0]} → ${HASHES[1]}`);
  });

  it('records unknown, with a reason and no token, when the server refuses and echoes what it was sent', async () => {
    configure(`uri: '${nessie.url}', ref: nope`);
    expect(await runStep(3)).toMatchObject({ exitCode: 0 });
    const row = inspect(3);
    expect(row).toMatchObject({ catalog_provider: 'nessie', catalog_status: 'unknown', catalog_snapshot_id: null });
    expect(row.catalog_detail?.reason).toContain("Nessie reference 'nope': HTTP 404");
    expect(row.catalog_detail?.reason).toContain("you sent 'Bearer ***'");
    expect(nessie.seen.at(-1)!.authorization).toBe(`Bearer ${SECRET}`); // the echo did carry the token
  });

  it("records unknown within timeout_ms when the server never answers, and keeps dbt's exit code", async () => {
    configure(`uri: '${hanging.url}', ref: main, timeout_ms: 300`);
    const step = replay.step(5);
    expect(step.exit_code).toBe(1);
    expect(await runStep(5)).toMatchObject({ exitCode: 1 });
    expect(hanging.seen).toHaveLength(1);
    const row = inspect(5);
    expect(row).toMatchObject({ catalog_status: 'unknown', run_exit_code: 1 });
    expect(row.catalog_detail?.reason).toMatch(/no answer within 300 ms/);
  });

  it('refuses a URI carrying the token, with a clear message, without failing the run', async () => {
    const port = new URL(nessie.url).port;
    configure(`uri: 'http://someone:${SECRET}@127.0.0.1:${port}', ref: main`);
    const info = attic(['info']);
    expect(info.exitCode).toBe(0);
    expect(info.stdout).toMatch(/catalog\s+invalid: catalog\.uri carries credentials/);
    const infoJson = attic(['info', '--json']);
    expect(JSON.parse(infoJson.stdout)).toMatchObject({ config: { catalog: { error: expect.stringContaining('carries credentials') } } });

    const before = nessie.seen.length;
    const run = await runStep(6);
    expect(run.exitCode).toBe(0);
    expect(run.stderr).toMatch(/catalog\.uri carries credentials/);
    expect(nessie.seen).toHaveLength(before);
    expect(inspect(6)).toMatchObject({
      catalog_provider: 'invalid',
      catalog_status: 'unknown',
      catalog_detail: { reason: expect.stringContaining('carries credentials') },
    });

    configure(`uri: 'http://127.0.0.1:${port}/?token=${SECRET}', ref: main`);
    expect(attic(['info']).stdout).toMatch(/carries a credential in its query/);
  });

  it('leaves the token in no file of the store and in no output of any command', () => {
    for (const args of [
      ['history', '--json'],
      ['query', '--json', 'SELECT * FROM invocation'],
      ['query', '--json', 'SELECT * FROM capture'],
      ['verify'],
      ['info', '--json'],
    ]) {
      expect(attic(args).exitCode, args.join(' ')).toBe(0);
    }
    const store = path.join(replay.project, '.dbtattic');
    const files = filesUnder(store);
    expect(files.some((f) => f.endsWith('store.duckdb'))).toBe(true);
    expect(files.filter((f) => f.includes(`${path.sep}records${path.sep}captures${path.sep}`))).toHaveLength(5);
    // Controls: the byte search does find what was stored beside the token, in the DuckDB file too.
    const duckdb = readFileSync(files.find((f) => f.endsWith('store.duckdb'))!);
    expect(duckdb.includes(HASHES[1]!)).toBe(true);
    expect(duckdb.includes("you sent 'Bearer ***'")).toBe(true);
    for (const file of files) {
      const bytes = readFileSync(file);
      for (const form of FORMS) expect(bytes.includes(form), `${form} in ${file}`).toBe(false);
    }
    expect(outputs.length).toBeGreaterThan(10);
    for (const { stdout, stderr } of outputs) {
      for (const form of FORMS) expect(`${stdout}\n${stderr}`).not.toContain(form);
    }
  });
});
