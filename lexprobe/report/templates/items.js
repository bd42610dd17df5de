// The items page: rows of the embedded JSON block, filtered, grouped by model and task, each group a
// <details> closed by default (the page stays short on a phone), its rows drawn PAGE at a time.
// Every text goes in through textContent, never as markup.
const DATA = JSON.parse(document.getElementById('data').textContent);
const $ = id => document.getElementById(id);
const COLS = DATA.columns.filter(c => c[0] !== 'model' && c[0] !== 'task');
const TASK = (DATA.columns.find(c => c[0] === 'task') || ['task', 'Task'])[1];
for (const r of DATA.rows) {
  r._text = DATA.columns.map(c => String(r[c[0]] ?? '')).join(' ').toLowerCase();
}
function fill(select, key) {
  const values = [...new Set(DATA.rows.map(r => r[key]))].sort();
  for (const v of values) { const o = document.createElement('option'); o.value = v; o.textContent = v; select.appendChild(o); }
}
fill($('model'), 'model'); fill($('task'), 'task'); fill($('pos'), 'pos');
const opened = new Set();
function el(tag, cls, text) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
}
function draw(body, rows, from, to) {
  for (const r of rows.slice(from, to)) {
    const tr = el('tr', r.ok ? 'ok' : 'fail');
    for (const [key, label] of COLS) {
      const td = el('td', key, r[key] ?? '');
      td.dataset.label = label;
      tr.appendChild(td);
    }
    body.appendChild(tr);
  }
}
function group(key, g, open) {
  const d = el('details', 'group');
  d.dataset.model = g.model; d.dataset.task = g.task;
  d.open = open;
  const s = el('summary');
  // the group's own counts (every item it has under the filters), whatever the "failures only" box hides:
  // a 16-item group with 10 right once read "6 items, 6 failed"
  const fails = g.all.filter(r => !r.ok).length;
  s.append(el('strong', '', g.model), ' · ' + TASK.toLowerCase() + ' ' + g.task + ': ' + g.all.length +
           (g.all.length === 1 ? ' item' : ' items'), el('span', 'fails', ', ' + fails + ' failed'),
           g.rows.length < g.all.length ? el('span', 'shown', ' (' + g.rows.length + ' shown: failures only)') : '');
  d.appendChild(s);
  d.addEventListener('toggle', () => { if (d.open) opened.add(key); else opened.delete(key); });
  const box = el('div', 'tablebox'), table = el('table', 'items'), head = el('tr'), body = el('tbody');
  for (const [, label] of COLS) head.appendChild(el('th', '', label));
  table.appendChild(el('thead')).appendChild(head);
  table.appendChild(body);
  box.appendChild(table);
  d.appendChild(box);
  let drawn = Math.min(PAGE, g.rows.length);
  draw(body, g.rows, 0, drawn);
  if (drawn < g.rows.length) {
    const more = el('button', 'more');
    const say = () => { more.textContent = 'show ' + Math.min(PAGE, g.rows.length - drawn) + ' more (' + drawn + ' of ' + g.rows.length + ' shown)'; };
    say();
    more.addEventListener('click', () => {
      draw(body, g.rows, drawn, drawn + PAGE);
      drawn = Math.min(drawn + PAGE, g.rows.length);
      if (drawn >= g.rows.length) more.remove(); else say();
    });
    d.appendChild(more);
  }
  return d;
}
function render() {
  const q = $('search').value.trim().toLowerCase();
  const m = $('model').value, t = $('task').value, p = $('pos').value, failures = $('failures').checked;
  const groups = new Map();
  let matched = 0;
  for (const r of DATA.rows) {
    if ((m && r.model !== m) || (t && r.task !== t) || (p && r.pos !== p)) continue;
    if (q && !r._text.includes(q)) continue;
    const key = JSON.stringify([r.model, r.task]);
    if (!groups.has(key)) groups.set(key, {model: r.model, task: r.task, rows: [], all: []});
    groups.get(key).all.push(r);
    if (failures && r.ok) continue;
    matched++;
    groups.get(key).rows.push(r);
  }
  for (const [key, g] of groups) if (!g.rows.length) groups.delete(key);  // nothing of it shown
  const narrowed = Boolean(q || m || t || p);
  const out = $('groups');
  out.replaceChildren();
  for (const [key, g] of groups) out.appendChild(group(key, g, opened.has(key) || (narrowed && groups.size === 1)));
  $('count').textContent = matched + ' of ' + DATA.rows.length + ' items match, in ' + groups.size +
    (groups.size === 1 ? ' group' : ' groups');
}
for (const id of ['search', 'model', 'task', 'pos', 'failures']) { $(id).addEventListener('input', render); }
render();
