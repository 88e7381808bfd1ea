import MarkdownIt from 'markdown-it';
import { describe, expect, it } from 'vitest';
import { code, markdownSummary } from '../../../src/report/markdown.js';
import type { Changes } from '../../../src/store/index.js';

/**
 * The pull-request summary carries text from artifacts: node names, statuses and dbt's failure
 * messages. Rendered by a real CommonMark renderer with GitHub's extensions on (tables, bare
 * URLs as links), hostile text must make no link, image, HTML, heading or mention: every
 * piece of it stays inside a code span, whole, and the page keeps its shape.
 */
const renderer = new MarkdownIt({ html: true, linkify: true });
const HOSTILE = [
  '@org/team please look',
  '[click](https://evil.example/x) ![img](https://evil.example/p.png)',
  'see https://evil.example/pay and www.evil.example',
  '<img src=x onerror=alert(1)> <script>alert(1)</script>',
  'a `backtick` and ``two`` and a trailing `',
  'line one\n# injected heading\n- injected item',
  'a | pipe | in a | cell',
  '  spaces both sides  ',
  '\r\n<!-- dbtattic-report -->',
  '**bold** _em_ ~~strike~~ \\ backslash',
];
const changes = (ids: string[]): Changes => ({
  from: 'aaaaaaaa-1',
  to: 'bbbbbbbb-2',
  same_code: false,
  git: { from: null, to: null, range: null },
  catalog: { from: null, to: null, changed: null },
  manifests: { from: 'aaaaaaaa-1', to: 'bbbbbbbb-2' },
  nodes: ids.map((unique_id) => ({ unique_id, resource_type: 'model', change: 'code', aspects: ['raw_code'] })),
  node_counts: { code: ids.length },
  macros: [],
  macro_counts: {},
  statuses: [],
  runtimes: [],
  unknown: {},
});

describe('the markdown summary, rendered, with hostile names and messages', () => {
  const text = markdownSummary({
    changes: changes(HOSTILE.map((h) => `model.p.${h}`)),
    short: (id) => id.slice(0, 8),
    ran: Object.fromEntries(HOSTILE.map((h) => [h, 1])),
    downstream: new Map(HOSTILE.map((h) => [`model.p.${h}`, [`model.p.below_${h}`]])),
    failures: HOSTILE.map((h, i) => ({ unique_id: `model.p.f${i}${h}`, status: h, message: h })),
    regressions: HOSTILE.map((h) => ({ unique_id: `model.p.${h}`, last_s: 9, baseline_median_s: 1, trend_ratio: 9 })),
    plan: null,
  });
  const html = renderer.render(text);

  it('makes no link, image, raw HTML or heading of theirs, and mentions only inside code', () => {
    expect(html).not.toMatch(/<a |<img|<script|<h1|<h2|<h4/);
    expect(html.match(/<h3>/g)).toHaveLength(1);
    expect(html.replace(/<code>[\s\S]*?<\/code>/g, '')).not.toMatch(/@org|evil\.example|onerror/);
    // The marker a CI step finds its comment by is ours alone: a message's copy is code text.
    expect(html.match(/<!-- dbtattic-report -->/g)).toHaveLength(1);
  });

  it('keeps each failure one list item, and each regression one table row of four cells', () => {
    const failureItems = html.match(/<li><code>model\.p\.f\d/g) ?? [];
    expect(failureItems).toHaveLength(HOSTILE.length);
    const rows = [...html.matchAll(/<tr>([\s\S]*?)<\/tr>/g)].map((m) => (m[1]!.match(/<t[dh]/g) ?? []).length);
    expect(rows.filter((cells) => cells === 4)).toHaveLength(HOSTILE.length + 1);
    expect(rows.every((cells) => cells === 2 || cells === 4)).toBe(true);
  });

  it('gives back each piece of text, as a code span renders it', () => {
    for (const hostile of HOSTILE) {
      const flat = hostile.replace(/[\r\n]/g, ' ');
      const rendered = renderer.renderInline(code(flat)).replace(/^<code>|<\/code>$/g, '');
      expect(decode(rendered)).toBe(flat);
    }
  });
});

function decode(html: string): string {
  return html
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&amp;/g, '&');
}
