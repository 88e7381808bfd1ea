import { describe, expect, it } from 'vitest';
import { parseCatalogConfig, readCatalogSnapshot, type CatalogConfig } from '../../../../src/capture/catalog/index.js';

/** The commands run node itself, so the tests need nothing installed. */
const NODE = process.execPath;
const env = { PATH: process.env.PATH, SNAP: '01J8Z6' };

function command(args: string[], extra: Record<string, unknown> = {}): CatalogConfig {
  return parseCatalogConfig({ provider: 'command', command: [NODE, ...args], ...extra })!;
}

describe('command provider', () => {
  it('records the trimmed stdout, seeing only the env it is given', async () => {
    const snapshot = await readCatalogSnapshot(command(['-e', 'console.log("  snap-" + process.env.SNAP + "  ")']), { env });
    expect(snapshot).toEqual({ provider: 'command', status: 'ok', snapshotId: 'snap-01J8Z6', atomic: false });
  });

  it('passes arguments without a shell', async () => {
    const snapshot = await readCatalogSnapshot(command(['-e', 'console.log(process.argv[1])', '$(echo no-shell) ; x']), { env });
    expect(snapshot.snapshotId).toBe('$(echo no-shell) ; x');
  });

  it('is unknown on a failing command, with its stderr', async () => {
    const snapshot = await readCatalogSnapshot(command(['-e', 'console.error("branch gone"); process.exit(3)'], { atomic: true }), { env });
    expect(snapshot).toMatchObject({ status: 'unknown', snapshotId: null, atomic: true });
    expect(snapshot.reason).toContain('exit 3');
    expect(snapshot.reason).toContain('branch gone');
  });

  it('is unknown when the program does not exist', async () => {
    const config = parseCatalogConfig({ provider: 'command', command: ['/nonexistent/dbtattic-snapshot'] })!;
    const snapshot = await readCatalogSnapshot(config, { env });
    expect(snapshot.status).toBe('unknown');
    expect(snapshot.reason).toContain('did not run');
  });

  it('is unknown on empty or multi-line output', async () => {
    const empty = await readCatalogSnapshot(command(['-e', '']), { env });
    expect(empty.reason).toContain('printed nothing');
    const log = await readCatalogSnapshot(command(['-e', 'console.log("a\\nb")']), { env });
    expect(log.reason).toContain('got 2 lines,');
  });

  it('is killed at the timeout', async () => {
    const snapshot = await readCatalogSnapshot(command(['-e', 'setTimeout(() => {}, 60000)'], { timeout_ms: 300 }), { env });
    expect(snapshot.status).toBe('unknown');
    expect(snapshot.reason).toContain('no answer within 300 ms');
  });
});

describe('env provider', () => {
  it('records the value of the named variable, or unknown without it', async () => {
    const config = parseCatalogConfig({ provider: 'env', variable: 'SNAP', atomic: true })!;
    expect(await readCatalogSnapshot(config, { env })).toEqual({ provider: 'env', status: 'ok', snapshotId: '01J8Z6', atomic: true });
    const unset = await readCatalogSnapshot(config, { env: {} });
    expect(unset).toMatchObject({ status: 'unknown', snapshotId: null });
    expect(unset.reason).toContain('SNAP');
  });
});

describe('catalog.timeout_ms', () => {
  it('is the bound on the reading, even for a command that ignores SIGTERM', async () => {
    const stubborn = command(['-e', 'process.on("SIGTERM", () => {}); setTimeout(() => {}, 60000)'], { timeout_ms: 300 });
    const snapshot = await readCatalogSnapshot(stubborn, { env });
    expect(snapshot.status).toBe('unknown');
    expect(snapshot.reason).toMatch(/no answer within 300 ms/);
  });
});
