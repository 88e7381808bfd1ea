import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { resolveConfig } from '../../../src/config/resolve.js';

function project(files: Record<string, string> = {}): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'attic-config-'));
  writeFileSync(path.join(dir, 'dbt_project.yml'), files['dbt_project.yml'] ?? 'name: shop\n');
  for (const [name, text] of Object.entries(files)) if (name !== 'dbt_project.yml') writeFileSync(path.join(dir, name), text);
  return dir;
}

describe('resolveConfig', () => {
  it('defaults to .dbtattic and target/ in the project found above the working directory', () => {
    const dir = project();
    const nested = path.join(dir, 'models', 'staging');
    mkdirSync(nested, { recursive: true });
    const config = resolveConfig({ flags: {}, env: {}, cwd: nested });
    expect(config.projectDir).toEqual({ value: dir, source: 'cwd' });
    expect(config.store).toEqual({ value: path.join(dir, '.dbtattic'), source: 'default' });
    expect(config.targetDir).toEqual({ value: path.join(dir, 'target'), source: 'default' });
    expect(config.projectName).toBe('shop');
    expect(config.artifacts.value).toEqual(['manifest', 'run_results', 'sources', 'catalog', 'semantic_manifest', 'freshness']);
    expect(config.logDir).toEqual({ value: path.join(dir, 'logs'), source: 'default' });
    expect(config.capture).toEqual({ sql: { value: true, source: 'default' }, logs: { value: true, source: 'default' } });
  });

  it('takes the store from flag, then env, then dbtattic.yml, then vars.dbtattic, then the default', () => {
    const dir = project({ 'dbt_project.yml': 'name: shop\nvars:\n  dbtattic:\n    store: from-vars\n', 'dbtattic.yml': 'store: from-yml\n' });
    const at = (flags: { store?: string }, env: Record<string, string> = {}) => resolveConfig({ flags, env, cwd: dir }).store;
    expect(at({ store: 'flag-dir' }, { DBTATTIC_STORE: 'env-dir' })).toEqual({ value: path.join(dir, 'flag-dir'), source: 'flag' });
    expect(at({}, { DBTATTIC_STORE: 'env-dir' })).toEqual({ value: path.join(dir, 'env-dir'), source: 'env:DBTATTIC_STORE' });
    expect(at({})).toEqual({ value: path.join(dir, 'from-yml'), source: 'dbtattic.yml' });
    const varsOnly = project({ 'dbt_project.yml': 'name: shop\nvars:\n  dbtattic:\n    store: from-vars\n' });
    expect(resolveConfig({ flags: {}, env: {}, cwd: varsOnly }).store).toEqual({ value: path.join(varsOnly, 'from-vars'), source: 'dbt_project.yml' });
  });

  it("resolves dbt's target path as dbt does: flag, DBT_TARGET_PATH, target-path, against the project", () => {
    const dir = project({ 'dbt_project.yml': 'name: shop\ntarget-path: build\n' });
    const sub = path.join(dir, 'sub');
    mkdirSync(sub);
    expect(resolveConfig({ flags: { targetPath: 'x' }, env: { DBT_TARGET_PATH: 'y' }, cwd: sub }).targetDir).toEqual({
      value: path.join(dir, 'x'),
      source: 'flag',
    });
    expect(resolveConfig({ flags: {}, env: { DBT_TARGET_PATH: 'y' }, cwd: dir }).targetDir).toEqual({
      value: path.join(dir, 'y'),
      source: 'env:DBT_TARGET_PATH',
    });
    expect(resolveConfig({ flags: {}, env: {}, cwd: dir }).targetDir).toEqual({ value: path.join(dir, 'build'), source: 'dbt_project.yml' });
  });

  it('takes the branch from flag, env or dbtattic.yml, and the artifacts from dbtattic.yml', () => {
    const dir = project({ 'dbtattic.yml': 'branch: yml-branch\nartifacts: [manifest, run_results.json]\n' });
    expect(resolveConfig({ flags: { branch: 'f' }, env: { DBTATTIC_BRANCH: 'e' }, cwd: dir }).branch).toEqual({ value: 'f', source: 'flag' });
    expect(resolveConfig({ flags: {}, env: { DBTATTIC_BRANCH: 'e' }, cwd: dir }).branch).toEqual({ value: 'e', source: 'env:DBTATTIC_BRANCH' });
    const config = resolveConfig({ flags: {}, env: {}, cwd: dir });
    expect(config.branch).toEqual({ value: 'yml-branch', source: 'dbtattic.yml' });
    expect(config.artifacts).toEqual({ value: ['manifest', 'run_results'], source: 'dbtattic.yml' });
  });

  it("finds dbt's log as dbt does: DBT_LOG_PATH, then log-path, against the project", () => {
    const dir = project({ 'dbt_project.yml': 'name: shop\nlog-path: dbt-logs\n' });
    expect(resolveConfig({ flags: {}, env: {}, cwd: dir }).logDir).toEqual({ value: path.join(dir, 'dbt-logs'), source: 'dbt_project.yml' });
    expect(resolveConfig({ flags: {}, env: { DBT_LOG_PATH: '/var/log/dbt' }, cwd: dir }).logDir).toEqual({ value: '/var/log/dbt', source: 'env:DBT_LOG_PATH' });
  });

  it('switches SQL and log capture off from dbtattic.yml, and refuses a malformed capture:', () => {
    const dir = project({ 'dbtattic.yml': 'capture:\n  sql: false\n' });
    expect(resolveConfig({ flags: {}, env: {}, cwd: dir }).capture).toEqual({
      sql: { value: false, source: 'dbtattic.yml' },
      logs: { value: true, source: 'default' },
    });
    for (const bad of ['capture: false\n', 'capture:\n  sql: "no"\n', 'capture:\n  compiled: false\n']) {
      expect(() => resolveConfig({ flags: {}, env: {}, cwd: project({ 'dbtattic.yml': bad }) }), bad).toThrow(/'capture' in dbtattic.yml/);
    }
  });

  it('refuses what it cannot use, saying what to fix', () => {
    const outside = mkdtempSync(path.join(os.tmpdir(), 'attic-none-'));
    expect(() => resolveConfig({ flags: {}, env: {}, cwd: outside })).toThrow(/No dbt_project.yml in .* or above it/);
    expect(() => resolveConfig({ flags: { projectDir: outside }, env: {}, cwd: '/' })).toThrow(/Point --project-dir at a dbt project/);
    expect(() => resolveConfig({ flags: {}, env: {}, cwd: project({ 'dbtattic.yml': 'artifacts: [manifest, graph]\n' }) })).toThrow(/unknown: graph/);
    expect(() => resolveConfig({ flags: {}, env: {}, cwd: project({ 'dbtattic.yml': 'store: [unclosed\n' }) })).toThrow(/is not valid YAML/);
  });

  it('refuses a key dbtattic.yml does not know, naming the nearest valid one', () => {
    const typo = project({ 'dbtattic.yml': 'store: .attic\nbranh: main\n' });
    expect(() => resolveConfig({ flags: {}, env: {}, cwd: typo })).toThrow(
      expect.objectContaining({
        code: 'config',
        message: expect.stringMatching(/'branh' in dbtattic\.yml is not a dbtattic setting; did you mean 'branch'\?/),
      }),
    );
    const unlike = project({ 'dbtattic.yml': 'warehouse: x\n' });
    expect(() => resolveConfig({ flags: {}, env: {}, cwd: unlike })).toThrow(
      expect.objectContaining({ code: 'config', message: expect.not.stringContaining('did you mean') }),
    );
  });

  it('refuses a setting of the wrong type, rather than take it as not set', () => {
    for (const [file, text, key] of [
      ['dbtattic.yml', 'store: 123\n', 'store'],
      ['dbtattic.yml', 'store: [a]\n', 'store'],
      ['dbtattic.yml', 'branch: 5\n', 'branch'],
      ['dbtattic.yml', 'remote: 5\n', 'remote'],
      ['dbtattic.yml', 'cache: {}\n', 'cache'],
      ['dbtattic.yml', 's3: 3\n', 's3'],
      ['dbt_project.yml', 'name: shop\nvars:\n  dbtattic:\n    store: 5\n', 'store'],
    ] as const) {
      const cwd = project({ [file]: text });
      expect(() => resolveConfig({ flags: {}, env: {}, cwd }), text).toThrow(
        expect.objectContaining({ code: 'config', message: expect.stringContaining(`'${key}' in `) }),
      );
    }
  });

  it('refuses a config file that is a FIFO or a device, before reading it', () => {
    const dir = project();
    symlinkSync('/dev/zero', path.join(dir, 'dbtattic.yml'));
    expect(() => resolveConfig({ flags: {}, env: {}, cwd: dir })).toThrow(/dbtattic\.yml is not a regular file/);
    const fifo = mkdtempSync(path.join(os.tmpdir(), 'attic-fifo-'));
    execFileSync('mkfifo', [path.join(fifo, 'dbt_project.yml')]);
    expect(() => resolveConfig({ flags: {}, env: {}, cwd: fifo })).toThrow(/dbt_project\.yml is not a regular file/);
  });

  it('works outside a project when the store is given', () => {
    const outside = mkdtempSync(path.join(os.tmpdir(), 'attic-none-'));
    const config = resolveConfig({ flags: {}, env: { DBTATTIC_STORE: '/srv/attic' }, cwd: outside });
    expect(config.store.value).toBe('/srv/attic');
    expect(config.projectDir).toBeNull();
    expect(config.targetDir).toBeNull();
  });
});
