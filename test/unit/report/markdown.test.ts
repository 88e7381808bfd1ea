import { describe, expect, it } from 'vitest';
import { markdownSummary } from '../../../src/report/markdown.js';
import type { Changes } from '../../../src/store/index.js';

/** The pull-request summary never says "none" for node changes it cannot know. */
const changes = (over: Partial<Changes>): Changes => ({
  from: 'aaaaaaaa-1', to: 'bbbbbbbb-2', same_code: null, git: { from: null, to: null, range: null }, catalog: { from: null, to: null, changed: null },
  manifests: { from: 'aaaaaaaa-1', to: 'bbbbbbbb-2' }, nodes: [], node_counts: {}, macros: [], macro_counts: {}, statuses: [], runtimes: [], unknown: {}, ...over,
});
const summary = (c: Changes): string => markdownSummary({ changes: c, short: (id) => id.slice(0, 8), failures: [], regressions: [], plan: null });

describe('markdownSummary', () => {
  it('says the node changes are unknown, with the reason, when a side has no manifest', () => {
    const text = summary(changes({ nodes: null, macros: null, manifests: { from: 'aaaaaaaa-1', to: null }, unknown: { nodes: 'bbbbbbbb has no manifest: its manifest was never archived (only catalog archived)' } }));
    expect(text).toContain('**Nodes changed**: unknown (bbbbbbbb has no manifest: its manifest was never archived (only catalog archived)).');
    expect(text).not.toContain('**Nodes changed**: none.');
  });

  it('says none when both manifests were compared and nothing changed', () => {
    expect(summary(changes({}))).toContain('**Nodes changed**: none.');
  });
});
