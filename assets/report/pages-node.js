// Models (every node): the list, and one node's page: duration over time with its p50–p95 band
// and regressions, its status strip, rows affected, and each change with its code diff.

function renderModels(main) {
  const nodes = REPORT.data.nodes.filter((n) => n.runs > 0).sort((a, b) => (b.p50_s || 0) - (a.p50_s || 0));
  main.append(el('h1', {}, 'Models and other nodes'),
    el('p', { class: 'muted' }, `${REPORT.data.nodes.length} nodes; those that ran, slowest median first${nodes.length > 300 ? ' (the first 300; search finds any)' : ''}.`),
    table(['node', 'type', 'median', 'p95', 'last', 'runs'], nodes.slice(0, 300).map((n) => [nodeLink(n), n.type, seconds(n.p50_s), seconds(n.p95_s), seconds(n.last_s), n.runs]), { 'data-table': 'models' }));
}

function renderNode(main, uid) {
  const k = REPORT.indexById.get(uid);
  if (k === undefined) return notFound(main, `No node ${uid} in this report.`);
  const node = REPORT.data.nodes[k];
  const series = REPORT.data.series[k];
  main.append(el('h1', {}, node.name), el('p', { class: 'muted mono' }, `${node.id} · ${node.type}${node.path ? ` · ${node.path}` : ''}`));
  main.append(el('div', { class: 'tiles' },
    tile('p50', 'median', node.p50_s ?? '', seconds(node.p50_s)),
    tile('p95', 'p95', node.p95_s ?? '', seconds(node.p95_s)),
    tile('last', 'last', node.last_s ?? '', seconds(node.last_s)),
    tile('node-runs', 'completed runs', node.runs)));
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
  return el('div', {}, changes.slice().reverse().map((c) => el('article', { class: 'change', 'data-change': c.kind },
    el('h3', {}, el('span', { class: `badge kind-${c.kind}` }, c.kind), ` ${when(c.at)} · run `, runLink({ id: c.run }), ` · git ${shortSha(c.sha)}`),
    el('p', { class: 'muted' }, `changed: ${c.what.join(', ') || '–'}${c.macros.length ? ` · macros: ${c.macros.join(', ')}` : ''}`),
    c.raw ? codeBlock('code', c.raw) : null,
    c.compiled ? codeBlock('compiled SQL', c.compiled) : null)));
}

function codeBlock(title, lines) {
  return el('details', { open: true }, el('summary', {}, title), el('pre', { class: 'diff' }, lines.map(([op, text]) =>
    el('div', { class: op === '+' ? 'add' : op === '-' ? 'del' : op === '@' ? 'hunk' : 'ctx' }, op === '@' ? `… ${text}` : `${op} ${text}`))));
}
