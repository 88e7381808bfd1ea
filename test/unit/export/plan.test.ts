import { describe, expect, it } from 'vitest';
import { normalizedRemote, planExport, projectKey } from '../../../src/export/index.js';

const file = (invocationId: string, digest: string, project = 'p') => ({ table: 'run_result', project, date: '2026-01-01', invocationId, digest });

describe('planExport', () => {
  it('writes what is not listed, keeps what is, deletes a stale version of a held invocation', () => {
    const plan = planExport({
      needed: [file('a', '1'.repeat(16)), file('b', '2'.repeat(16))],
      invocations: new Set(['a', 'b']),
      forgotten: new Set(),
      listed: [file('a', '1'.repeat(16)), file('b', '3'.repeat(16))],
    });
    expect(plan).toEqual({ write: [file('b', '2'.repeat(16))], delete: [file('b', '3'.repeat(16))], unchanged: 1 });
  });

  it("never deletes another exporter's invocation it does not hold, and deletes a forgotten one's", () => {
    const plan = planExport({ needed: [file('a', '1'.repeat(16))], invocations: new Set(['a', 'f']), forgotten: new Set(['f', 'g']), listed: [file('x', '9'.repeat(16)), file('g', '8'.repeat(16))] });
    expect(plan.delete).toEqual([file('g', '8'.repeat(16))]);
  });

  it('does not write an invocation the archive forgot, even if the store still holds it', () => {
    const plan = planExport({ needed: [file('f', '1'.repeat(16))], invocations: new Set(['f']), forgotten: new Set(['f']), listed: [] });
    expect(plan.write).toEqual([]);
  });
});

describe('projectKey', () => {
  it('is one value for one repository however it was cloned', () => {
    const forms = ['git@github.com:Acme/analytics.git', 'https://github.com/acme/analytics', 'ssh://git@github.com/Acme/analytics.git', 'https://user:token@github.com/Acme/analytics.git/'];
    expect(new Set(forms.map(normalizedRemote))).toEqual(new Set(['github.com/acme/analytics']));
    expect(new Set(forms.map((r) => projectKey(null, 'analytics', r))).size).toBe(1);
  });

  it('keeps two repositories of one project name apart, and an explicit name wins', () => {
    expect(projectKey(null, 'analytics', 'git@github.com:a/x.git')).not.toBe(projectKey(null, 'analytics', 'git@github.com:b/x.git'));
    expect(projectKey('org/analytics prod', 'analytics', 'git@github.com:a/x.git')).toBe('org_analytics_prod');
    expect(projectKey(null, null, null)).toBe('unnamed');
  });
});
