import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * README is what a newcomer meets; the manual is in docs/ (issue 45). These hold the split to
 * its promises: README stays short, nothing it said before was dropped (each of its old section
 * headings is a heading somewhere in the docs), every relative link and anchor leads somewhere,
 * and docs/store.md's lists are what the schema's descriptions say.
 */
const ROOT = path.join(import.meta.dirname, '../../..');
const DOCS = [
  'README.md',
  'ARCHITECTURE.md',
  'CONTRIBUTING.md',
  'vscode/README.md',
  ...readdirSync(path.join(ROOT, 'docs'))
    .filter((n) => n.endsWith('.md'))
    .map((n) => `docs/${n}`),
];

/** Lines outside fenced code blocks, where a `#` opens a heading rather than a shell comment. */
function prose(file: string): string[] {
  let fenced = false;
  return readFileSync(path.join(ROOT, file), 'utf8')
    .split('\n')
    .filter((line) => {
      if (line.startsWith('```')) fenced = !fenced;
      return !fenced && !line.startsWith('```');
    });
}

function headings(file: string): string[] {
  return prose(file).flatMap((line) => /^#{1,6} (.+)$/.exec(line)?.[1] ?? []);
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens. */
function anchorOf(heading: string): string {
  return heading
    .toLowerCase()
    .replace(/[^\p{L}\p{N} _-]/gu, '')
    .replaceAll(' ', '-');
}

describe('the docs', () => {
  it('keep README under 250 lines, with its two setup commands as they were', () => {
    const readme = readFileSync(path.join(ROOT, 'README.md'), 'utf8');
    expect(readme.split('\n').length).toBeLessThan(250);
    expect(readme).toContain('npm ci && npm run demo    # the main job');
    expect(readme).toContain('npm ci && npm test && npm run test:dbt   # the tests');
  });

  it('keep every section of README before the split, as a heading in README or the docs', () => {
    const before = readFileSync(path.join(import.meta.dirname, 'readme-headings-before-45.txt'), 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((line) => line.replace(/^#+ /, ''));
    const now = new Set(DOCS.flatMap(headings));
    expect(before.filter((heading) => !now.has(heading))).toEqual([]);
  });

  it('link only to files and headings that exist', () => {
    const broken: string[] = [];
    for (const file of DOCS) {
      for (const line of prose(file)) {
        for (const [, target] of line.matchAll(/\]\(([^)\s]+)\)/g)) {
          if (/^[a-z]+:/.test(target!)) continue;
          const [where, anchor] = target!.split('#') as [string, string | undefined];
          const linked = where === '' ? file : path.join(path.dirname(file), where);
          if (!existsSync(path.join(ROOT, linked))) broken.push(`${file}: ${target}`);
          else if (anchor && linked.endsWith('.md') && !headings(linked).map(anchorOf).includes(anchor)) broken.push(`${file}: ${target} (no such heading)`);
        }
      }
    }
    expect(broken).toEqual([]);
  });

  it("list the store's tables and views in docs/store.md as the schema describes them", () => {
    expect(() => execFileSync(process.execPath, [path.join(ROOT, 'scripts/docs-store.mjs'), '--check'], { stdio: 'pipe' })).not.toThrow();
  });
});
