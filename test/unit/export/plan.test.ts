import { describe, expect, it } from 'vitest';
import { digestScope } from '../../../src/export/plan.js';
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
    const plan = planExport({
      needed: [file('a', '1'.repeat(16))],
      invocations: new Set(['a', 'f']),
      forgotten: new Set(['f', 'g']),
      listed: [file('x', '9'.repeat(16)), file('g', '8'.repeat(16))],
    });
    expect(plan.delete).toEqual([file('g', '8'.repeat(16))]);
  });

  it('does not write an invocation the archive forgot, even if the store still holds it', () => {
    const plan = planExport({ needed: [file('f', '1'.repeat(16))], invocations: new Set(['f']), forgotten: new Set(['f']), listed: [] });
    expect(plan.write).toEqual([]);
  });
});

describe('projectKey', () => {
  it('is one value for one repository however it was cloned', () => {
    const forms = [
      'git@github.com:Acme/analytics.git',
      'https://github.com/acme/analytics',
      'ssh://git@github.com/Acme/analytics.git',
      'https://user:token@github.com/Acme/analytics.git/',
    ];
    expect(new Set(forms.map(normalizedRemote))).toEqual(new Set(['github.com/acme/analytics']));
    expect(new Set(forms.map((r) => projectKey(null, 'analytics', r))).size).toBe(1);
  });

  it('keeps two repositories of one project name apart, and an explicit name wins', () => {
    expect(projectKey(null, 'analytics', 'git@github.com:a/x.git')).not.toBe(projectKey(null, 'analytics', 'git@github.com:b/x.git'));
    expect(projectKey('org/analytics prod', 'analytics', 'git@github.com:a/x.git')).toBe('org_analytics_prod');
    expect(projectKey(null, null, null)).toBe('unnamed');
  });
});

describe('digestScope', () => {
  const inv = (id: string, digest = 'a'.repeat(16), project = 'p') => ({ table: 'invocation', project, date: '2026-01-01', invocationId: id, digest });
  const order = ['a', 'b', 'c'];
  const invocationFiles = order.map((id) => inv(id));
  const listedAll = [...invocationFiles, ...order.map((id) => file(id, 'b'.repeat(16)))];
  const scope = (listed: ReturnType<typeof inv>[], forgotten: string[] = []) => digestScope({ order, invocationFiles, forgotten: new Set(forgotten), listed });

  it('digests nothing when every invocation is exported as the store has it now', () => {
    expect(scope(listedAll)).toEqual(new Set());
  });

  it('digests a new run, and from an older run filed late onwards (its arrival re-matches what follows)', () => {
    expect(scope(listedAll.filter((f) => f.invocationId !== 'c'))).toEqual(new Set(['c']));
    expect(scope(listedAll.filter((f) => f.invocationId !== 'b'))).toEqual(new Set(['b', 'c']));
  });

  it('digests from an invocation whose row changed, or that has two files of a table, or a file in another partition', () => {
    expect(scope([...listedAll.filter((f) => !(f.invocationId === 'b' && f.table === 'invocation')), inv('b', 'c'.repeat(16))])).toEqual(new Set(['b', 'c']));
    expect(scope([...listedAll, file('b', 'd'.repeat(16))])).toEqual(new Set(['b', 'c']));
    expect(scope([...listedAll.filter((f) => !(f.invocationId === 'c' && f.table === 'run_result')), file('c', 'b'.repeat(16), 'old-name')])).toEqual(
      new Set(['c']),
    );
  });

  it('digests everything on a first export, and while a forgotten invocation has files', () => {
    expect(scope([])).toBeNull();
    expect(scope([...listedAll, file('gone', 'e'.repeat(16))], ['gone'])).toBeNull();
    expect(scope(listedAll, ['gone'])).toEqual(new Set());
  });
});
