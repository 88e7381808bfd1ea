// Shared helpers of the report page: building elements, formatting numbers, times and statuses.
// Plain browser JavaScript, inlined into the report by src/report/html.ts (no modules: file://).

/** An element with attributes and children (strings become text, never HTML). */
function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === null || value === undefined || value === false) continue;
    if (key === 'class') node.className = value;
    else if (key.startsWith('data-')) node.setAttribute(key, String(value));
    else if (key === 'text') node.textContent = value;
    else node.setAttribute(key, String(value));
  }
  for (const child of children.flat()) if (child !== null && child !== undefined) node.append(child instanceof Node ? child : String(child));
  return node;
}

function seconds(value) {
  if (value === null || value === undefined) return '–';
  if (value < 1) return `${Math.round(value * 1000)} ms`;
  if (value < 120) return `${value.toFixed(value < 10 ? 2 : 1)} s`;
  const m = Math.floor(value / 60);
  return m < 120 ? `${m} min ${Math.round(value % 60)} s` : `${(value / 3600).toFixed(1)} h`;
}

/** Times as dbtattic prints them (formatTime in src/cli/format.ts): UTC, to the minute, with a Z. */
function when(iso) {
  return iso ? `${iso.replace('T', ' ').slice(0, 16)}Z` : '–';
}

function shortSha(sha) {
  return sha ? sha.slice(0, 7) : '–';
}

const FAILED_STATUSES = ['error', 'fail', 'runtime error', 'partial success'];
const LETTER_STATUS = { s: 'success', p: 'pass', w: 'warn', f: 'fail', e: 'error', k: 'skipped', n: 'no-op', u: 'reused', '?': 'other', '-': 'did not run' };

function statusClass(status) {
  if (!status) return 'st-none';
  if (FAILED_STATUSES.includes(status)) return 'st-bad';
  if (status === 'warn' || status === 'skipped') return 'st-warn';
  if (status === 'success' || status === 'pass' || status === 'ok') return 'st-ok';
  return 'st-none';
}

function statusBadge(status) {
  return el('span', { class: `badge ${statusClass(status)}` }, status || '–');
}

function tile(name, label, value, shown) {
  return el(
    'div',
    { class: 'tile', 'data-tile': name, 'data-value': value },
    el('div', { class: 'tile-value' }, shown ?? String(value)),
    el('div', { class: 'tile-label' }, label),
  );
}

function table(headers, rows, attrs) {
  return el(
    'table',
    attrs || {},
    el(
      'thead',
      {},
      el(
        'tr',
        {},
        headers.map((h) => el('th', {}, h)),
      ),
    ),
    el(
      'tbody',
      {},
      rows.map((cells) =>
        el(
          'tr',
          {},
          cells.map((c) => el('td', {}, c)),
        ),
      ),
    ),
  );
}

function section(title, ...children) {
  return el('section', {}, el('h2', {}, title), ...children);
}

function nodeLink(node) {
  return el('a', { href: `#model/${node.id}`, title: node.id }, node.name);
}

function runLink(run) {
  return el('a', { href: `#run/${run.id}`, class: 'mono' }, run.id.slice(0, 8));
}

function median(values) {
  const sorted = values.filter((v) => v !== null && v !== undefined).sort((a, b) => a - b);
  if (!sorted.length) return null;
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

function counts(map) {
  return Object.entries(map || {}).map(([status, n]) => el('span', { class: `badge ${statusClass(status)}` }, `${n} ${status}`));
}
