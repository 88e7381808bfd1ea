import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { resolveDbtTarget } from '../../../src/capture/dbt-target.js';

function dirWithProfiles(text: string): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'attic-profiles-'));
  writeFileSync(path.join(dir, 'profiles.yml'), text);
  return dir;
}

const PROFILES = "shop:\n  target: dev\n  outputs: {dev: {type: duckdb}, prod: {type: duckdb}}\nother:\n  target: \"{{ env_var('SHOP_TARGET', 'qa') }}\"\n";

describe('resolveDbtTarget', () => {
  it('takes the command line first, in every spelling dbt accepts', () => {
    const base = { env: { DBT_TARGET: 'ci' }, projectDir: null, profile: null };
    expect(resolveDbtTarget({ ...base, argv: ['dbt', 'build', '--target', 'prod'] })).toEqual({ name: 'prod', source: 'command line' });
    expect(resolveDbtTarget({ ...base, argv: ['dbt', 'build', '-t', 'prod'] })).toEqual({ name: 'prod', source: 'command line' });
    expect(resolveDbtTarget({ ...base, argv: ['dbt', 'build', '--target=prod'] })).toEqual({ name: 'prod', source: 'command line' });
  });

  it('then DBT_TARGET, then the profile default target of profiles.yml in the project or ~/.dbt', () => {
    const project = dirWithProfiles(PROFILES);
    expect(resolveDbtTarget({ argv: ['dbt', 'run'], env: { DBT_TARGET: 'ci' }, projectDir: project, profile: 'shop' })).toEqual({
      name: 'ci',
      source: 'env:DBT_TARGET',
    });
    expect(resolveDbtTarget({ argv: [], env: {}, projectDir: project, profile: 'shop' })).toEqual({ name: 'dev', source: path.join(project, 'profiles.yml') });
    const home = mkdtempSync(path.join(os.tmpdir(), 'attic-home-'));
    mkdirSync(path.join(home, '.dbt'));
    writeFileSync(path.join(home, '.dbt', 'profiles.yml'), PROFILES);
    const bare = mkdtempSync(path.join(os.tmpdir(), 'attic-bare-'));
    expect(resolveDbtTarget({ argv: [], env: { HOME: home }, projectDir: bare, profile: 'shop' })).toEqual({
      name: 'dev',
      source: path.join(home, '.dbt', 'profiles.yml'),
    });
  });

  it("follows --profiles-dir and --profile, and renders env_var() in a profile's target", () => {
    const elsewhere = dirWithProfiles(PROFILES);
    const project = mkdtempSync(path.join(os.tmpdir(), 'attic-bare-'));
    expect(
      resolveDbtTarget({
        argv: ['dbt', 'run', '--profiles-dir', elsewhere, '--profile', 'other'],
        env: { SHOP_TARGET: 'uat' },
        projectDir: project,
        profile: 'shop',
      }),
    ).toEqual({ name: 'uat', source: path.join(elsewhere, 'profiles.yml') });
    expect(resolveDbtTarget({ argv: [], env: { DBT_PROFILES_DIR: elsewhere }, projectDir: project, profile: 'other' })).toEqual({
      name: 'qa',
      source: path.join(elsewhere, 'profiles.yml'),
    });
  });

  it('is unknown without a readable profile', () => {
    const project = dirWithProfiles('shop: [not, a, mapping]\n');
    expect(resolveDbtTarget({ argv: [], env: {}, projectDir: project, profile: 'shop' })).toBeNull();
    expect(resolveDbtTarget({ argv: [], env: {}, projectDir: project, profile: null })).toBeNull();
    expect(resolveDbtTarget({ argv: [], env: {}, projectDir: dirWithProfiles(': : not yaml'), profile: 'shop' })).toBeNull();
  });
});
