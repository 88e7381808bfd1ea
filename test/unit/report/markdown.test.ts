import { describe, expect, it } from 'vitest';
import { markdownSummary } from '../../../src/report/markdown.js';
import type { Changes } from '../../../src/store/index.js';

/** The pull-request summary never says "none" for node changes it cannot know. */
const changes = (over: Partial<Changes>): Changes => ({
  from: 'aaaaaaaa-1',
  to: 'bbbbbbbb-2',
  same_code: null,
  git: { from: null, to: null, range: null },
  catalog: { from: null, to: null, changed: null },
  manifests: { from: 'aaaaaaaa-1', to: 'bbbbbbbb-2' },
  nodes: [],
  node_counts: {},
  macros: [],
  macro_counts: {},
  statuses: [],
  runtimes: [],
  unknown: {},
  ...over,
});
const summary = (c: Changes): string =>
  markdownSummary({ changes: c, short: (id) => id.slice(0, 8), ran: null, downstream: new Map(), failures: [], regressions: [], plan: null });

describe('markdownSummary', () => {
  it('says the node changes are unknown, with the reason, when a side has no manifest', () => {
    const text = summary(
      changes({
        nodes: null,
        macros: null,
        manifests: { from: 'aaaaaaaa-1', to: null },
        unknown: { nodes: 'bbbbbbbb has no manifest: its manifest was never archived (only catalog archived)' },
      }),
    );
    expect(text).toContain('**Nodes changed**: unknown (bbbbbbbb has no manifest: its manifest was never archived (only catalog archived)).');
    expect(text).not.toContain('**Nodes changed**: none.');
  });

  it('says none when both manifests were compared and nothing changed', () => {
    expect(summary(changes({}))).toContain('**Nodes changed**: none.');
  });
});

describe('markdownSummary within a comment', () => {
  const many = (n: number): Changes =>
    changes({
      nodes: Array.from({ length: n }, (_, i) => ({ unique_id: `model.big_project.a_rather_long_model_name_${String(i).padStart(5, '0')}`, change: 'code' })),
      node_counts: { code: n },
    });
  const downstream = (n: number): Map<string, string[]> =>
    new Map(
      Array.from({ length: n }, (_, i) => [`model.big_project.a_rather_long_model_name_${String(i).padStart(5, '0')}`, [`model.big_project.below_${i}`]]),
    );
  const render = (n: number, options = {}): string =>
    markdownSummary(
      { changes: many(n), short: (id) => id.slice(0, 8), ran: { success: n }, downstream: downstream(n), failures: [], regressions: [], plan: null },
      options,
    );

  it("lists every node when they fit, and cuts the lists to GitHub's 65,536 characters with a link when they do not", () => {
    expect(render(50)).not.toContain('Lists cut');
    expect(render(50).match(/^- `model/gm)).toHaveLength(50);
    const big = render(3000, { reportUrl: 'https://ci.example/artifacts/report.html' });
    expect(big.length).toBeLessThanOrEqual(65_536);
    expect(big).toContain('**Nodes changed**: 3000');
    expect(big).toMatch(/Lists cut to \d+ to fit a comment\. \[The full report\]\(https:\/\/ci\.example\/artifacts\/report\.html\)\./);
    expect(big).toMatch(/^- … and \d+ more$/m);
  });

  it('keeps to a smaller limit, cutting at a line', () => {
    const small = render(3000, { maxChars: 700 });
    expect(small.length).toBeLessThanOrEqual(700);
    expect(small).toContain('Lists cut to 0');
    const tiny = render(3000, { maxChars: 120 });
    expect(tiny.length).toBeLessThanOrEqual(120);
    expect(tiny.endsWith('… cut at 120 characters.\n')).toBe(true);
  });
});
