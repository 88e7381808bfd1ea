// A node's lineage in the newest manifest: two hops upstream and downstream as columns of boxes
// joined by lines, each box coloured by the node's latest status and outlined when the newest
// run with a manifest changed it. Tests are listed apart (a model may have dozens). Each column
// shows at most LINEAGE_COLUMN_MAX boxes, so a 10,000-node project still draws a few dozen.

const LINEAGE_COLUMN_MAX = 12;

/** Parents and children by node index, built once from the flat edge list. */
function lineageGraph() {
  if (!REPORT.lineage) {
    const parents = new Map();
    const children = new Map();
    const flat = REPORT.data.lineage || [];
    const add = (map, key, value) => (map.get(key) || map.set(key, []).get(key)).push(value);
    for (let k = 0; k + 1 < flat.length; k += 2) {
      add(parents, flat[k], flat[k + 1]);
      add(children, flat[k + 1], flat[k]);
    }
    REPORT.lineage = { parents, children };
  }
  return REPORT.lineage;
}

const isTestNode = (k) => ['test', 'unit_test'].includes(REPORT.data.nodes[k].type);

/** Nodes `depth` hops away along `next`, one column per hop, tests left out, each node once (nearest hop). */
function lineageHops(k, next, depth) {
  const seen = new Set([k]);
  const columns = [];
  let frontier = [k];
  for (let hop = 0; hop < depth; hop++) {
    const column = [];
    for (const at of frontier) {
      for (const n of next.get(at) || []) {
        if (seen.has(n) || isTestNode(n)) continue;
        seen.add(n);
        column.push(n);
      }
    }
    if (!column.length) break;
    columns.push(column);
    frontier = column;
  }
  return columns;
}

/** The node's latest status: its newest result, else its source's newest freshness check. */
function latestStatus(k) {
  const series = REPORT.data.series[k];
  const letter = series ? [...series.st].reverse().find((l) => l !== '-') : undefined;
  if (letter) return LETTER_STATUS[letter] || letter;
  const source = REPORT.data.sources.find((s) => s.node === k);
  const check = source?.checks[source.checks.length - 1];
  return check ? check.status : null;
}

function changedInNewest(k) {
  const manifest = REPORT.data.meta.manifest;
  return Boolean(manifest && (REPORT.data.changes[k] || []).some((c) => c.run === manifest));
}

function lineageBox(k, self) {
  const node = REPORT.data.nodes[k];
  const status = latestStatus(k);
  const changed = changedInNewest(k);
  return el(
    'a',
    {
      class: `lineage-node ${statusClass(status)}${self ? ' self' : ''}${changed ? ' changed' : ''}`,
      href: `#model/${node.id}`,
      'data-node': node.id,
      'data-index': k,
      'data-status': status || 'none',
      'data-changed': changed ? 'true' : null,
      title: `${node.id} (${node.type}): ${status || 'no result'}${changed ? '; changed in the newest run with a manifest' : ''}`,
    },
    node.name,
  );
}

function lineageColumn(label, nodes, side) {
  const shown = nodes.slice(0, LINEAGE_COLUMN_MAX);
  return el(
    'div',
    { class: 'lineage-column', 'data-side': side },
    el('h4', {}, label),
    shown.map((k) => lineageBox(k, false)),
    nodes.length > shown.length ? el('span', { class: 'muted' }, `+${nodes.length - shown.length} more`) : null,
  );
}

function lineageView(k) {
  if (!REPORT.data.meta.manifest) return el('p', { class: 'muted' }, 'No run of this report has a manifest: the lineage is unknown.');
  if (!REPORT.data.nodes[k].current) return el('p', { class: 'muted' }, 'This node is not in the newest manifest of this report: it has no lineage there.');
  const graph = lineageGraph();
  const up = lineageHops(k, graph.parents, 2);
  const down = lineageHops(k, graph.children, 2);
  const tests = (graph.children.get(k) || []).filter(isTestNode);
  const columns = [
    ...up.map((nodes, hop) => lineageColumn(hop ? `${hop + 1} hops up` : 'upstream', nodes, `up${hop + 1}`)).reverse(),
    el('div', { class: 'lineage-column', 'data-side': 'self' }, el('h4', {}, 'this node'), lineageBox(k, true)),
    ...down.map((nodes, hop) => lineageColumn(hop ? `${hop + 1} hops down` : 'downstream', nodes, `down${hop + 1}`)),
  ];
  return el(
    'div',
    {},
    el('div', { class: 'lineage', 'data-lineage': REPORT.data.nodes[k].id }, columns),
    el('p', { class: 'muted' }, `Colour: latest status. Dashed outline: changed in the newest run with a manifest (${REPORT.data.meta.manifest.slice(0, 8)}).`),
    tests.length
      ? el(
          'p',
          { 'data-lineage-tests': tests.length },
          `${tests.length} test${tests.length === 1 ? '' : 's'} on it: `,
          tests
            .slice(0, 40)
            .map((t) =>
              el(
                'a',
                { class: `badge ${statusClass(latestStatus(t))}`, href: `#model/${REPORT.data.nodes[t].id}`, title: latestStatus(t) || 'no result' },
                REPORT.data.nodes[t].name,
              ),
            ),
          tests.length > 40 ? ` +${tests.length - 40} more` : '',
        )
      : null,
  );
}

/** Lines between boxes of neighbouring columns that are parent and child; drawn once the boxes are laid out. */
function drawLineageLines(view) {
  const box = view.querySelector('.lineage');
  if (!box) return;
  const { parents } = lineageGraph();
  const origin = box.getBoundingClientRect();
  const svg = document.createElementNS('http://www.w3.org/2000/svg', 'svg');
  svg.setAttribute('width', box.scrollWidth);
  svg.setAttribute('height', box.scrollHeight);
  const columns = [...box.querySelectorAll('.lineage-column')].map((c) => [...c.querySelectorAll('.lineage-node')]);
  for (let c = 0; c + 1 < columns.length; c++) {
    for (const left of columns[c]) {
      for (const right of columns[c + 1]) {
        if (!(parents.get(Number(right.dataset.index)) || []).includes(Number(left.dataset.index))) continue;
        const a = left.getBoundingClientRect();
        const b = right.getBoundingClientRect();
        const line = document.createElementNS('http://www.w3.org/2000/svg', 'line');
        line.setAttribute('x1', a.right - origin.left + box.scrollLeft);
        line.setAttribute('y1', a.top + a.height / 2 - origin.top);
        line.setAttribute('x2', b.left - origin.left + box.scrollLeft);
        line.setAttribute('y2', b.top + b.height / 2 - origin.top);
        svg.append(line);
      }
    }
  }
  box.prepend(svg);
}
