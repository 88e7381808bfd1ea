// One run: dbt's model-timing tiles, the Gantt chart by thread with the critical path, failures,
// and what changed since the previous run.

function renderRun(main, id) {
  const d = REPORT.data;
  const run = d.runs.find((r) => r.id === id) || d.runs.find((r) => r.id.startsWith(id));
  if (!run) return notFound(main, `No run ${id} in this report.`);
  const detail = d.details[run.id];
  main.append(
    el('h1', {}, `Run ${run.id.slice(0, 8)}`),
    el(
      'p',
      {},
      `started ${when(run.at)} · dbt ${run.command || '?'} · target ${run.target || '–'} · branch ${run.branch || '–'} · git ${shortSha(run.sha)} · `,
      counts(run.counts),
    ),
  );
  if (!detail) {
    main.append(
      el(
        'p',
        { class: 'note' },
        'This run is older than the runs this report keeps in full (size budget): its timeline, failures and changes are left out. dbtattic inspect shows them.',
      ),
    );
    return;
  }
  const t = detail.timeline;
  if (t) {
    const longest = t.tiles.longest && d.nodes.find((n) => n.id === t.tiles.longest.unique_id);
    main.append(
      el(
        'div',
        { class: 'tiles' },
        tile('wall', 'wall clock', t.tiles.wall_s, seconds(t.tiles.wall_s)),
        tile('critical', 'critical path', t.tiles.critical_s, seconds(t.tiles.critical_s)),
        tile('peak', 'peak concurrency', t.tiles.peak_concurrency),
        tile(
          'longest',
          `longest node${longest ? `: ${longest.name}` : ''}`,
          t.tiles.longest ? t.tiles.longest.seconds : '',
          t.tiles.longest ? seconds(t.tiles.longest.seconds) : '–',
        ),
      ),
    );
    const chart = el('div', { 'data-chart': 'gantt' });
    main.append(
      section(
        'Timeline by thread (critical path outlined in red)',
        chart,
        t.untimed
          ? el(
              'p',
              { class: 'muted', 'data-untimed': t.untimed },
              `${t.untimed} node${t.untimed === 1 ? '' : 's'} without timing from dbt (skipped, or failed before executing) have no bar and no place on the critical path.`,
            )
          : null,
      ),
    );
    ganttChart(chart, t, t.critical);
    main.append(
      section(
        'Critical path',
        el(
          'ol',
          { class: 'path' },
          t.critical.map((uid) => el('li', {}, nodeLinkById(uid))),
        ),
      ),
    );
  } else main.append(el('p', { class: 'muted' }, 'dbt recorded no timing for this run.'));
  main.append(
    section(
      'Failed, warned and skipped',
      detail.problems.length
        ? table(
            ['node', 'status', 'message'],
            detail.problems.map((p) => [nodeLinkById(p.node), statusBadge(p.status), el('span', { class: 'message' }, p.message || '')]),
            { 'data-table': 'problems' },
          )
        : el('p', { class: 'muted' }, 'Nothing failed, warned or was skipped.'),
    ),
  );
  main.append(section('Changed since the previous run', diffView(detail.diff)));
}

function diffView(diff) {
  if (!diff) return el('p', { class: 'muted' }, 'No earlier run with a manifest on this branch and target.');
  const kinds = Object.entries(diff.node_counts);
  return el(
    'div',
    { 'data-diff': diff.previous },
    el(
      'p',
      {},
      'From ',
      runLink({ id: diff.previous }),
      ': ',
      diff.nodes_unknown
        ? `node changes unknown (${diff.nodes_unknown}).`
        : kinds.length
          ? kinds.map(([k, n]) => el('span', { class: 'badge', 'data-kind': k, 'data-count': n }, `${n} ${k}`))
          : 'no node changed.',
    ),
    diff.nodes.length
      ? table(
          ['node', 'change'],
          diff.nodes.slice(0, 200).map((n) => [nodeLinkById(n.id), n.change]),
        )
      : null,
    diff.statuses.length
      ? table(
          ['node', 'was', 'now'],
          diff.statuses.slice(0, 200).map((s) => [nodeLinkById(s.id), statusBadge(s.from), statusBadge(s.to)]),
        )
      : null,
  );
}

function nodeLinkById(uid) {
  const node = REPORT.nodeById.get(uid);
  return node ? nodeLink(node) : el('span', { class: 'mono' }, uid);
}
