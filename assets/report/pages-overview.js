// Overview and the list of runs.

function renderOverview(main) {
  const d = REPORT.data;
  const judged = d.runs.filter((r) => r.outcome !== 'none');
  const ok = judged.filter((r) => r.outcome === 'ok').length;
  const walls = d.runs.filter((r) => r.elapsed_s !== null).map((r) => r.elapsed_s);
  const models = projectNodes().filter((n) => n.type === 'model').length;
  const tests = projectNodes().filter((n) => n.type === 'test' || n.type === 'unit_test').length;
  const rate = judged.length ? (100 * ok) / judged.length : null;
  main.append(
    el('h1', {}, `Overview${d.meta.project ? `: ${d.meta.project}` : ''}`),
    el('p', { class: 'muted' }, `${d.meta.scope}. Generated ${when(d.meta.generated_at)} by dbtattic ${d.meta.tool_version}.`),
    ...(d.meta.budget.note ? [el('p', { class: 'note', 'data-budget-note': 'true' }, d.meta.budget.note)] : []),
    el(
      'div',
      { class: 'tiles' },
      tile('runs', 'runs', d.runs.length),
      tile('success-rate', 'runs without failures', rate === null ? '' : rate.toFixed(1), rate === null ? '–' : `${rate.toFixed(0)} %`),
      tile('median-wall', 'median wall time', median(walls) ?? '', seconds(median(walls))),
      tile('last-wall', 'last wall time', walls.length ? walls[walls.length - 1] : '', seconds(walls[walls.length - 1])),
      tile('models', 'models', models),
      tile('tests', 'tests', tests),
      tile('failures', 'failed results', d.meta.failures),
    ),
  );
  const recent = d.runs.slice(-40);
  const sparks = el('div', { class: 'sparks' });
  main.append(section('Last runs', sparks));
  const wall = el('div', { 'data-chart': 'wall-spark' });
  const fails = el('div', { 'data-chart': 'failure-spark' });
  sparks.append(el('figure', {}, wall, el('figcaption', {}, 'wall time')), el('figure', {}, fails, el('figcaption', {}, 'failed results')));
  sparkline(
    wall,
    recent.map((r) => r.elapsed_s),
  );
  sparkline(
    fails,
    recent.map((r) => r.failed),
    '#dc2626',
  );
  main.append(section('Recent runs', runsTable(d.runs.slice(-10).reverse())));
  const slowest = d.nodes
    .filter((n) => n.type === 'model' && n.p50_s !== null)
    .sort((a, b) => b.p50_s - a.p50_s)
    .slice(0, 10);
  main.append(
    section(
      'Slowest models (median)',
      table(
        ['model', 'median', 'p95', 'last', 'runs'],
        slowest.map((n) => [nodeLink(n), seconds(n.p50_s), seconds(n.p95_s), seconds(n.last_s), n.runs]),
      ),
    ),
  );
  main.append(
    section(
      'Biggest regressions',
      d.regressions.length
        ? table(
            ['node', 'last', 'baseline', 'ratio', 'run'],
            d.regressions
              .slice(0, 10)
              .map((r) => [nodeLink(d.nodes[r.node]), seconds(r.last_s), seconds(r.baseline_s), `${r.ratio.toFixed(1)}×`, runLink({ id: r.run })]),
          )
        : el('p', { class: 'muted' }, 'No node ran more than 1.5× (and 1 s) slower than its baseline in its last run.'),
    ),
  );
  // A deleted test's last failure is history, not a test failing now.
  const standing = d.tests.filter((t) => !t.deleted);
  const flaky = standing.filter((t) => t.flaky);
  const failing = standing.filter((t) => t.failing_since?.ongoing);
  const listed = [...flaky, ...failing.filter((t) => !t.flaky)];
  main.append(
    section(
      'Flaky and failing tests',
      listed.length
        ? table(
            ['test', 'state', 'failing since', 'sha'],
            listed.map((t) => [
              nodeLink(d.nodes[t.node]),
              t.flaky ? 'flaky' : statusBadge(t.last),
              t.failing_since ? runLink({ id: t.failing_since.run }) : '–',
              t.failing_since ? shortSha(t.failing_since.sha) : '–',
            ]),
          )
        : el('p', { class: 'muted' }, 'No test is flaky or failing now.'),
    ),
  );
}

function runsTable(runs) {
  return table(
    ['started', 'run', 'command', 'target', 'results', 'took', 'git', 'branch'],
    runs.map((r) => [
      when(r.at),
      runLink(r),
      r.command || '–',
      r.target || '–',
      el('span', {}, counts(r.counts)),
      seconds(r.elapsed_s),
      shortSha(r.sha),
      r.branch || '–',
    ]),
    { 'data-table': 'runs' },
  );
}

function renderRuns(main) {
  const runs = REPORT.data.runs.slice().reverse();
  main.append(
    el('h1', {}, 'Runs'),
    el('p', { class: 'muted' }, `${runs.length} runs, newest first${runs.length > 500 ? ' (the newest 500 listed)' : ''}.`),
    runsTable(runs.slice(0, 500)),
  );
}
