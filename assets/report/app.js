// The page: inflate the embedded data, then route by the URL hash (#overview, #runs,
// #run/<id>, #models, #model/<unique_id>, #tests, #sources) and search node names.

const REPORT = { data: null, nodeById: new Map(), indexById: new Map() };

async function loadData() {
  const text = document.getElementById('report-data').textContent.trim();
  const bytes = Uint8Array.fromBase64 ? Uint8Array.fromBase64(text) : binary(atob(text));
  const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream('gzip'));
  return JSON.parse(await new Response(stream).text());
}

/** A binary string's bytes (browsers without Uint8Array.fromBase64). */
function binary(text) {
  const bytes = new Uint8Array(text.length);
  for (let k = 0; k < text.length; k++) bytes[k] = text.charCodeAt(k);
  return bytes;
}

function notFound(main, message) {
  main.append(el('h1', {}, 'Not found'), el('p', {}, message, ' ', el('a', { href: '#overview' }, 'Back to the overview.')));
}

function route() {
  const hash = decodeURIComponent(location.hash.replace(/^#/, '')) || 'overview';
  const [page, ...rest] = hash.split('/');
  const arg = rest.join('/');
  const main = document.getElementById('page');
  main.replaceChildren();
  document.body.dataset.ready = '';
  const pages = { overview: renderOverview, runs: renderRuns, models: renderModels, tests: renderTests, sources: renderSources };
  if (page === 'run') renderRun(main, arg);
  else if (page === 'model' || page === 'node') renderNode(main, arg);
  else if (pages[page]) pages[page](main);
  else notFound(main, `No page ${hash}.`);
  document.body.dataset.page = page;
  for (const a of document.querySelectorAll('header nav a'))
    a.classList.toggle(
      'active',
      a.getAttribute('href') === `#${page}` ||
        (page === 'run' && a.getAttribute('href') === '#runs') ||
        (page === 'model' && a.getAttribute('href') === '#models'),
    );
  window.scrollTo(0, 0);
  document.body.dataset.ready = hash;
}

function search(query) {
  const box = document.getElementById('search-results');
  box.replaceChildren();
  const q = query.trim().toLowerCase();
  if (!q) return;
  const found = [];
  for (const node of REPORT.data.nodes) {
    if (node.name.toLowerCase().includes(q) || node.id.toLowerCase().includes(q)) found.push(node);
    if (found.length === 20) break;
  }
  box.append(
    ...(found.length
      ? found.map((n) => el('a', { href: `#model/${n.id}` }, el('span', {}, n.name), el('span', { class: 'muted' }, ` ${n.type}`)))
      : [el('span', { class: 'muted' }, 'No node matches.')]),
  );
}

async function start() {
  REPORT.data = await loadData();
  REPORT.data.nodes.forEach((n, k) => {
    REPORT.nodeById.set(n.id, n);
    REPORT.indexById.set(n.id, k);
  });
  const input = document.getElementById('search');
  input.addEventListener('input', () => search(input.value));
  document.getElementById('search-results').addEventListener('click', () => {
    input.value = '';
    search('');
  });
  window.addEventListener('hashchange', route);
  route();
}

start().catch((error) => {
  document.getElementById('page').replaceChildren(el('p', { class: 'note' }, `This report could not be read: ${error.message}`));
  throw error;
});
