// Writes the lists of the store's tables, views and described columns in docs/store.md from the
// `COMMENT ON` statements of schema/*.sql, the one place their descriptions are written (the
// MCP server and anyone with DuckDB read them from the database). Only the text between the two
// markers is replaced. `--check` writes nothing and exits 1 when docs/store.md is not as this
// would write it (a test runs that).
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';

const SCHEMA_DIR = new URL('../schema/', import.meta.url);
const DOC = new URL('../docs/store.md', import.meta.url);
const START = '<!-- The lists below are written by scripts/docs-store.mjs from the COMMENT ON statements of schema/*.sql: edit those, then run it. -->';
const END = '<!-- End of the lists written by scripts/docs-store.mjs. -->';

/** One statement a line, as the schema writes them: `COMMENT ON VIEW name IS '…';`. */
const DESCRIPTION = /^COMMENT ON (TABLE|VIEW|COLUMN) ([\w.]+) IS '((?:[^']|'')*)';$/gm;

function readDescriptions() {
  return readdirSync(SCHEMA_DIR)
    .filter((name) => name.endsWith('.sql'))
    .sort()
    .flatMap((file) =>
      [...readFileSync(new URL(file, SCHEMA_DIR), 'utf8').matchAll(DESCRIPTION)].map((m) => ({
        file,
        kind: m[1],
        name: m[2],
        text: m[3].replaceAll("''", "'"),
      })),
    );
}

function table(header, rows) {
  const cell = (text) => text.replaceAll('|', '\\|');
  return [`| ${header[0]} | ${header[1]} |`, '|---|---|', ...rows.map((r) => `| \`${r.name}\` | ${cell(r.text)} |`)];
}

function renderLists(descriptions = readDescriptions()) {
  const relations = descriptions.filter((d) => d.kind !== 'COLUMN');
  return [
    START,
    'Tables (`schema/001-*.sql`; each states its grain and key next to it; a few are views queried like tables):',
    '',
    ...table(
      ['table', 'what it holds'],
      relations.filter((d) => d.file.startsWith('001-')),
    ),
    '',
    'Views (`schema/002-views.sql`):',
    '',
    ...table(
      ['view', 'answers'],
      relations.filter((d) => !d.file.startsWith('001-')),
    ),
    '',
    'Columns the schema describes:',
    '',
    ...table(
      ['column', 'what it holds'],
      descriptions.filter((d) => d.kind === 'COLUMN'),
    ),
    END,
  ].join('\n');
}

function withLists(doc, lists = renderLists()) {
  const start = doc.indexOf(START);
  const end = doc.indexOf(END);
  if (start < 0 || end < start) throw new Error(`docs/store.md has no "${START}" ... "${END}" to replace`);
  return doc.slice(0, start) + lists + doc.slice(end + END.length);
}

const doc = readFileSync(DOC, 'utf8');
const written = withLists(doc);
if (process.argv.includes('--check')) {
  if (written !== doc) {
    process.stderr.write('docs/store.md is not as scripts/docs-store.mjs writes it from schema/*.sql: run `node scripts/docs-store.mjs`\n');
    process.exitCode = 1;
  }
} else if (written !== doc) {
  writeFileSync(DOC, written);
}
