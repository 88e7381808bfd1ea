// Charts, drawn by uPlot (inlined beside this code). Each chart's container gets data-drawn
// once uPlot has drawn it, which the tests wait for.

function chartWidth(container) {
  return Math.max(320, Math.min(1100, (container.clientWidth || document.querySelector('main').clientWidth || 900) - 8));
}

function drawnHook() {
  return { draw: [(u) => u.root.parentElement?.setAttribute('data-drawn', 'true')] };
}

/** A small line over the last runs, no axes. */
function sparkline(container, values, color) {
  container.classList.add('chart', 'spark');
  const xs = values.map((_, k) => k);
  return new uPlot(
    {
      width: 220,
      height: 48,
      legend: { show: false },
      cursor: { show: false },
      scales: { x: { time: false } },
      axes: [{ show: false }, { show: false }],
      series: [{}, { stroke: color || '#2563eb', width: 1.5, spanGaps: true, points: { show: false } }],
      hooks: drawnHook(),
    },
    [xs, values],
    container,
  );
}

/** Labels of the x-axis of node charts: the date of each point's (first) run. */
function pointLabels(points) {
  return points.map((p) => {
    const run = REPORT.data.runs[p.run];
    return run ? when(run.at).slice(5, 16) + (p.runs > 1 ? ` +${p.runs - 1}` : '') : '';
  });
}

/** An x-axis of point indices, labelled with dates at whole steps only. */
function pointAxis(labels) {
  return {
    space: 110,
    incrs: [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000],
    values: (u, splits) => splits.map((i) => (Number.isInteger(i) ? labels[i] || '' : '')),
  };
}

/** Duration per point with the p50–p95 band and the regressions marked. */
function durationChart(container, node, series) {
  container.classList.add('chart');
  const points = REPORT.data.points;
  const xs = points.map((_, k) => k);
  const secs = series.ms.map((v) => (v === null ? null : v / 1000));
  const p50 = xs.map(() => node.p50_s);
  const p95 = xs.map(() => node.p95_s);
  const reg = xs.map((k) => (series.reg.includes(k) ? secs[k] : null));
  const labels = pointLabels(points);
  return new uPlot(
    {
      width: chartWidth(container),
      height: 260,
      padding: [12, 40, 0, 0],
      scales: { x: { time: false } },
      axes: [pointAxis(labels), { label: 'seconds' }],
      series: [
        { label: 'run', value: (u, i) => (i === null ? '' : labels[i]) },
        { label: 'duration', stroke: '#2563eb', width: 2, spanGaps: true, value: (u, v) => seconds(v) },
        { label: 'p50', stroke: '#16a34a', dash: [6, 4], width: 1, points: { show: false }, value: (u, v) => seconds(v) },
        { label: 'p95', stroke: '#d97706', dash: [6, 4], width: 1, points: { show: false }, value: (u, v) => seconds(v) },
        {
          label: 'regression',
          stroke: '#dc2626',
          width: 0,
          points: { show: true, size: 10, fill: '#dc2626' },
          paths: () => null,
          value: (u, v) => (v === null ? '' : seconds(v)),
        },
      ],
      bands: [{ series: [3, 2], fill: 'rgba(217,119,6,0.12)' }],
      hooks: drawnHook(),
    },
    [xs, secs, p50, p95, reg],
    container,
  );
}

/** A value per point (rows affected). */
function pointChart(container, values, label) {
  container.classList.add('chart');
  const points = REPORT.data.points;
  const labels = pointLabels(points);
  return new uPlot(
    {
      width: chartWidth(container),
      height: 180,
      padding: [12, 40, 0, 0],
      scales: { x: { time: false } },
      axes: [pointAxis(labels), {}],
      series: [
        { label: 'run', value: (u, i) => (i === null ? '' : labels[i]) },
        { label, stroke: '#7c3aed', width: 2, spanGaps: true },
      ],
      hooks: drawnHook(),
    },
    [points.map((_, k) => k), values],
    container,
  );
}

/** One bar per node on its thread's row; the critical path outlined in red. */
function ganttChart(container, timeline, critical) {
  container.classList.add('chart');
  const bars = timeline.bars;
  const end = Math.max(1, ...bars.map((b) => b[2] + b[3])) / 1000;
  const rows = timeline.threads.length;
  const onPath = new Set(critical);
  const colour = { success: '#60a5fa', pass: '#86efac', warn: '#fcd34d', fail: '#f87171', error: '#ef4444', skipped: '#d1d5db' };
  const draw = (u) => {
    const ctx = u.ctx;
    ctx.save();
    for (const [id, thread, start, duration, status] of bars) {
      const x0 = u.valToPos(start / 1000, 'x', true);
      const x1 = Math.max(x0 + 2, u.valToPos((start + duration) / 1000, 'x', true));
      const y0 = u.valToPos(thread - 0.35, 'y', true);
      const y1 = u.valToPos(thread + 0.35, 'y', true);
      ctx.fillStyle = colour[status] || '#a5b4fc';
      ctx.fillRect(x0, Math.min(y0, y1), x1 - x0, Math.abs(y1 - y0));
      if (onPath.has(id)) {
        ctx.strokeStyle = '#b91c1c';
        ctx.lineWidth = 2 * devicePixelRatio;
        ctx.strokeRect(x0, Math.min(y0, y1), x1 - x0, Math.abs(y1 - y0));
      }
    }
    ctx.restore();
  };
  return new uPlot(
    {
      width: chartWidth(container),
      height: Math.max(140, 40 * rows + 70),
      legend: { show: false },
      scales: { x: { time: false, range: [0, end] }, y: { range: [-0.5, rows - 0.5], dir: -1 } },
      axes: [
        { label: 'seconds since the first node started' },
        { values: (u, splits) => splits.map((v) => timeline.threads[v] || ''), splits: () => timeline.threads.map((_, k) => k), size: 140, gap: 6 },
      ],
      series: [{}, { show: false }],
      hooks: { draw: [draw, ...drawnHook().draw] },
    },
    [
      [0, end],
      [null, null],
    ],
    container,
  );
}

/** A source's age at each freshness check. */
function ageChart(container, checks) {
  container.classList.add('chart');
  const labels = checks.map((c) => when(REPORT.data.runs[c.run]?.at).slice(5, 16));
  return new uPlot(
    {
      width: Math.min(560, chartWidth(container)),
      height: 160,
      legend: { show: false },
      scales: { x: { time: false } },
      axes: [pointAxis(labels), { label: 'hours' }],
      series: [
        {},
        { label: 'age', stroke: '#0891b2', width: 2, spanGaps: true, points: { show: true }, value: (u, v) => (v === null ? '' : `${v.toFixed(1)} h`) },
      ],
      hooks: drawnHook(),
    },
    [checks.map((_, k) => k), checks.map((c) => (c.age_s === null ? null : c.age_s / 3600))],
    container,
  );
}

/** One cell per point: its status letter's colour; a click opens that run. */
function statusStrip(st, newest) {
  const strip = el('div', { class: 'strip' });
  const from = newest ? Math.max(0, st.length - newest) : 0;
  [...st].forEach((letter, k) => {
    if (k < from) return;
    const point = REPORT.data.points[k];
    const run = point && REPORT.data.runs[point.run];
    const status = LETTER_STATUS[letter] || letter;
    strip.append(
      el('a', {
        class: `cell ${letter === '-' ? 'st-absent' : statusClass(status)}`,
        href: run ? `#run/${run.id}` : null,
        title: `${run ? when(run.at) : ''} ${status}`,
      }),
    );
  });
  return strip;
}
