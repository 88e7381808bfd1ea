// Models (every node): the list, and one node's page: duration over time with its p50–p95 band
// and regressions, its status strip, rows affected, and each change with its code diff.

/** Models first, tests last: the list is for what builds. */
const TYPE_ORDER = ['model', 'snapshot', 'seed', 'source', 'exposure', 'metric', 'semantic_model', 'saved_query', 'analysis', 'operation', 'sql_operation'];
/** Entries of a manifest that are text, not nodes of the DAG: search finds them, the list leaves them out. */
const UNLISTED_TYPES = new Set(['doc', 'group']);
const typeRank = (type) => (type === 'test' || type === 'unit_test' ? 99 : TYPE_ORDER.includes(type) ? TYPE_ORDER.indexOf(type) : 50);

/** The nodes of the project as the report shows it: its newest manifest's, else (no manifest in scope) every node. */
function projectNodes() {
  const d = REPORT.data;
  return d.meta.manifest ? d.nodes.filter((n) => n.current) : d.nodes;
}

function renderModels(main) {
  const d = REPORT.data;
  // The newest manifest's nodes, whether they ran or not (a history of docs generate runs none),
  // and any other node that ran in the report's runs.
  const nodes = d.nodes
    .filter((n) => (n.current && !UNLISTED_TYPES.has(n.type)) || n.runs > 0)
    .sort((a, b) => (b.p50_s ?? -1) - (a.p50_s ?? -1) || typeRank(a.type) - typeRank(b.type) || a.name.localeCompare(b.name));
  const changes = (n) => (d.changes[REPORT.indexById.get(n.id)] || []).length;
  const listed = d.meta.manifest
    ? `the ${projectNodes().filter((n) => !UNLISTED_TYPES.has(n.type)).length} nodes of the newest manifest (run ${d.meta.manifest.slice(0, 8)}) and those that ran`
    : 'those that ran';
  main.append(
    el('h1', {}, 'Models and other nodes'),
    el(
      'p',
      { class: 'muted' },
      `${d.nodes.length} nodes; ${listed}: slowest median first, then models before tests${nodes.length > 300 ? ' (the first 300; search finds any)' : ''}.`,
    ),
    table(
      ['node', 'type', 'materialized', 'median', 'p95', 'last', 'runs', 'changes'],
      nodes
        .slice(0, 300)
        .map((n) => [
          el(
            'span',
            {},
            nodeLink(n),
            n.current || !d.meta.manifest ? null : el('span', { class: 'badge st-none', title: 'not in the newest manifest' }, 'removed'),
          ),
          n.type,
          n.materialization || '–',
          seconds(n.p50_s),
          seconds(n.p95_s),
          seconds(n.last_s),
          n.runs,
          changes(n) || '–',
        ]),
      { 'data-table': 'models' },
    ),
  );
}

function renderNode(main, uid) {
  const k = REPORT.indexById.get(uid);
  if (k === undefined) return notFound(main, `No node ${uid} in this report.`);
  const node = REPORT.data.nodes[k];
  const series = REPORT.data.series[k];
  main.append(el('h1', {}, node.name), el('p', { class: 'muted mono' }, `${node.id} · ${node.type}${node.path ? ` · ${node.path}` : ''}`));
  main.append(
    el(
      'div',
      { class: 'tiles' },
      tile('p50', 'median', node.p50_s ?? '', seconds(node.p50_s)),
      tile('p95', 'p95', node.p95_s ?? '', seconds(node.p95_s)),
      tile('last', 'last', node.last_s ?? '', seconds(node.last_s)),
      tile('node-runs', 'completed runs', node.runs),
    ),
  );
  const lineage = section('Lineage (newest manifest)', lineageView(k));
  main.append(lineage);
  drawLineageLines(lineage);
  if (series) {
    const chart = el('div', { 'data-chart': 'duration' });
    main.append(section('Duration per run', chart));
    durationChart(chart, node, series);
    main.append(section('Status per run', statusStrip(series.st)));
    if (series.rows) {
      const rows = el('div', { 'data-chart': 'rows' });
      main.append(section('Rows affected', rows));
      pointChart(rows, series.rows, 'rows');
    }
  } else main.append(el('p', { class: 'muted' }, 'This node has no results in the runs of this report.'));
  const test = REPORT.data.tests.find((t) => t.node === k);
  if (test) main.append(section('Test outcomes', testSummary(test)));
  main.append(section('Changes', changesView(REPORT.data.changes[k] || [])));
}

function changesView(changes) {
  if (!changes.length) return el('p', { class: 'muted' }, 'No change of this node between the manifests of this report.');
  return el(
    'div',
    {},
    changes
      .slice()
      .reverse()
      .map((c) =>
        el(
          'article',
          { class: 'change', 'data-change': c.kind },
          el('h3', {}, el('span', { class: `badge kind-${c.kind}` }, c.kind), ` ${when(c.at)} · run `, runLink({ id: c.run }), ` · git ${shortSha(c.sha)}`),
          el('p', { class: 'muted' }, `changed: ${c.what.join(', ') || '–'}${c.macros.length ? ` · macros: ${c.macros.join(', ')}` : ''}`),
          c.raw ? codeBlock('code', c.raw) : null,
          c.compiled ? codeBlock('compiled SQL', c.compiled) : null,
        ),
      ),
  );
}

function codeBlock(title, lines) {
  return el(
    'details',
    { open: true },
    el('summary', {}, title),
    el(
      'pre',
      { class: 'diff' },
      lines.map(([op, text]) =>
        el('div', { class: op === '+' ? 'add' : op === '-' ? 'del' : op === '@' ? 'hunk' : 'ctx' }, op === '@' ? `… ${text}` : `${op} ${text}`),
      ),
    ),
  );
}
