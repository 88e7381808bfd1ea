// Tests (outcomes per test, flaky by v_test_history's rule, when failing began) and Sources
// (freshness status and age over time).

function testSummary(t) {
  return el(
    'p',
    {},
    `${t.runs} runs: ${t.passes} pass, ${t.warns} warn, ${t.fails} fail, ${t.errors} error, ${t.skips} skipped. Last: `,
    statusBadge(t.last),
    t.flaky ? ' · flaky' : '',
    t.deleted ? ' · deleted: the latest manifest of its branch and target has no such test' : '',
    t.failing_since
      ? el(
          'span',
          {},
          ` · ${t.failing_since.ongoing && !t.deleted ? 'failing since' : 'last failures began at'} run `,
          runLink({ id: t.failing_since.run }),
          ` (git ${shortSha(t.failing_since.sha)})`,
        )
      : '',
  );
}

function renderTests(main) {
  const d = REPORT.data;
  const tests = d.tests.slice().sort((a, b) => b.fails + b.errors - (a.fails + a.errors) || d.nodes[a.node].name.localeCompare(d.nodes[b.node].name));
  main.append(
    el('h1', {}, 'Tests'),
    el(
      'p',
      { class: 'muted' },
      `${tests.length} tests ran; flaky: passed and failed within its last 10 runs with its own and its parents' definitions unchanged.`,
    ),
  );
  main.append(
    table(
      ['test', 'history', 'pass', 'warn', 'fail', 'error', 'last', 'flaky', 'failing since'],
      tests.slice(0, 500).map((t) => {
        const series = d.series[t.node];
        return [
          nodeLink(d.nodes[t.node]),
          series ? statusStrip(series.st, 30) : '',
          t.passes,
          t.warns,
          t.fails,
          t.errors,
          el(
            'span',
            {},
            statusBadge(t.last),
            t.deleted
              ? el('span', { class: 'badge st-none', 'data-deleted': 'true', title: 'not in the latest manifest of its branch and target' }, 'deleted')
              : null,
          ),
          t.flaky ? 'yes' : '',
          t.failing_since
            ? el('span', {}, runLink({ id: t.failing_since.run }), ` ${shortSha(t.failing_since.sha)}${t.failing_since.ongoing ? '' : ' (over)'}`)
            : '',
        ];
      }),
      { 'data-table': 'tests' },
    ),
  );
}

function renderSources(main) {
  const sources = REPORT.data.sources;
  main.append(
    el('h1', {}, 'Sources'),
    el(
      'p',
      { class: 'muted' },
      sources.length ? `${sources.length} sources checked by dbt source freshness.` : 'No freshness checks in the runs of this report.',
    ),
  );
  sources.slice(0, 100).forEach((s) => {
    const last = s.checks[s.checks.length - 1];
    const chart = el('div', { 'data-chart': 'age' });
    main.append(
      el(
        'section',
        { class: 'source' },
        el(
          'h3',
          {},
          el('a', { href: `#model/${REPORT.data.nodes[s.node] ? REPORT.data.nodes[s.node].id : ''}` }, s.name),
          ' ',
          statusBadge(last?.status),
          ` age ${last && last.age_s !== null ? seconds(last.age_s) : '–'}`,
        ),
        chart,
      ),
    );
    ageChart(chart, s.checks);
  });
}
