"""Self-contained HTML pages: no external scripts, styles or fonts; images as data URIs.

``index.html`` holds the tables, the figures and the run records; one page per
benchmark lists every item with what the model chose, filterable in the browser
(inline JavaScript over an embedded JSON block; works from ``file://``).
"""

from __future__ import annotations

import base64
import html
import json

from lexprobe.benchmarks.registry import all_benchmarks
from lexprobe.report.failures import columns as failure_columns
from lexprobe.tables import FLAG_MARK, UNITS, Table, to_html

RECORD_NOTE = ("Truncated, skipped, dropped: the result's non-zero counts of inputs cut to fit the model, units "
               "skipped and items dropped.")


def bench_titles() -> dict[str, str]:
    return {b.meta.name: b.meta.title for b in all_benchmarks()}


def section_titles() -> dict[str, str]:
    """Sections of index.html: the benchmarks, then docs/llm.md's table of models by method."""
    return {**bench_titles(), "llm": "Models by method"}
#: rows drawn at once on a failure page (the filter counts all of them)
PAGE_ROWS = 500

CSS = """
body{font-family:system-ui,-apple-system,"Segoe UI",sans-serif;margin:1.5em auto;max-width:1300px;color:#222;padding:0 1em}
h1{font-size:1.5em}h2{font-size:1.25em;margin-top:1.8em;border-bottom:1px solid #ccc}
table{border-collapse:collapse;margin:.8em 0;font-size:.9em}
.tablebox{max-width:100%;overflow-x:auto}.tablebox table{margin:.4em 0}
.tablebox table{font-size:.85em}.tablebox td,.tablebox th{padding:.25em .35em}td.prose{min-width:15em;max-width:22em}td.num .ci{display:block}
td.flag{background:#fff4e0}td.flag::before{content:"⚠ ";color:#b35c00;font-weight:700}
.flagnote{color:#8a4b00}
.banner{border:1px solid #e0b000;background:#fff8db;padding:.5em .8em;margin:.6em 0;border-radius:4px}
details.run{margin:.3em 0}details.run summary{cursor:pointer}details.run table{font-size:.85em}
details.run td{overflow-wrap:anywhere;max-width:60em}
caption{text-align:left;font-weight:600;padding:.3em 0}
th,td{border:1px solid #ddd;padding:.25em .5em;vertical-align:top}th{background:#f3f3f3}
td.num{text-align:right;white-space:nowrap}.ci{color:#777;font-size:.85em}
.note{color:#555;font-size:.85em;margin-top:0}
figure{display:inline-block;margin:.5em 1em .5em 0;max-width:100%}figure img{max-width:100%;max-height:85vh;border:1px solid #eee}
figcaption{font-size:.85em;color:#555}
.controls{display:flex;gap:.8em;flex-wrap:wrap;align-items:center;margin:1em 0}
#items td{max-width:40em}#items td.details{white-space:pre-wrap;font-family:ui-monospace,monospace;font-size:.85em}
tr.fail td:first-child{border-left:3px solid #c33}tr.ok td:first-child{border-left:3px solid #3a3}
pre{background:#f7f7f7;padding:.6em;overflow:auto;font-size:.8em;white-space:pre-wrap;overflow-wrap:anywhere}
#items td{overflow-wrap:anywhere}#items td.details{min-width:28em}
"""

FILTER_JS = """
const DATA = JSON.parse(document.getElementById('data').textContent);
const LIMIT = %d;
const $ = id => document.getElementById(id);
for (const r of DATA.rows) {
  r._text = DATA.columns.map(c => String(r[c[0]] ?? '')).join(' ').toLowerCase();
}
function fill(select, key) {
  const values = [...new Set(DATA.rows.map(r => r[key]))].sort();
  for (const v of values) { const o = document.createElement('option'); o.value = v; o.textContent = v; select.appendChild(o); }
}
fill($('model'), 'model'); fill($('task'), 'task'); fill($('pos'), 'pos');
function render() {
  const q = $('search').value.trim().toLowerCase();
  const m = $('model').value, t = $('task').value, p = $('pos').value, failures = $('failures').checked;
  const body = $('items').tBodies[0];
  body.replaceChildren();
  let matched = 0, shown = 0;
  for (const r of DATA.rows) {
    if (failures && r.ok) continue;
    if ((m && r.model !== m) || (t && r.task !== t) || (p && r.pos !== p)) continue;
    if (q && !r._text.includes(q)) continue;
    matched++;
    if (shown >= LIMIT) continue;
    const tr = document.createElement('tr');
    tr.className = r.ok ? 'ok' : 'fail';
    for (const [key] of DATA.columns) {
      const td = document.createElement('td');
      td.textContent = r[key] ?? '';
      td.className = key;
      tr.appendChild(td);
    }
    body.appendChild(tr);
    shown++;
  }
  $('count').textContent = matched + ' of ' + DATA.rows.length + ' items match' +
    (matched > shown ? ' (first ' + shown + ' shown; narrow the filter to see others)' : '');
}
for (const id of ['search', 'model', 'task', 'pos', 'failures']) { $(id).addEventListener('input', render); }
render();
""" % PAGE_ROWS


def _page(title: str, body: str, script: str = "") -> str:
    js = f"<script>{script}</script>" if script else ""
    return (f"<!DOCTYPE html>\n<html lang='en'><head><meta charset='utf-8'>"
            f"<meta name='viewport' content='width=device-width, initial-scale=1'><title>{html.escape(title)}</title>"
            f"<style>{CSS}</style></head><body>\n{body}\n{js}</body></html>\n")


def _json_block(obj) -> str:
    # no "<" at all inside the script element ("</script>", "<!--"); JSON reads "\\u003c" back as "<"
    return json.dumps(obj, ensure_ascii=False).replace("<", "\\u003c")


def sample_note(result: dict) -> str:
    """What part of the data a result ran on, as HTML, when it ran on a stand-in dataset (``dataset.sample``)
    or on part of the data (a ``limit`` or ``max_instances`` in its config); empty otherwise."""
    parts = []
    data = result.get("dataset") or {}
    if data.get("sample"):
        get = f" (for the real data: <code>{html.escape(data['get'])}</code>)" if data.get("get") else ""
        parts.append(f"ran on {html.escape(data.get('what') or data.get('name') or 'a sample')}{get}")
    config = result.get("config") or {}
    if config.get("limit") and config.get("draw") != "wordnet":  # a --draw wordnet sample: its dataset says it
        parts.append(f"evaluated only the first {config['limit']} items of each part of speech (--limit)")
    if config.get("max_instances"):
        parts.append(f"sampled whole lemmas up to {config['max_instances']} instances (--max-instances)")
    return "; ".join(parts)


def sample_banners(results: list[dict]) -> list[str]:
    """One banner per kind of sample, naming every result file (and model) that ran on it."""
    from pathlib import Path

    groups: dict[str, list[str]] = {}
    for r in results:
        note = sample_note(r)
        if note:
            model = str((r.get("model") or {}).get("name", "?"))
            groups.setdefault(note, []).append(f"{Path(r.get('_path', '?')).name} ({model})")
    return [f"<div class='banner sample'><strong>Sample, not the paper's full data:</strong> "
            f"{html.escape(', '.join(names))} {note}. "
            f"{'Its' if len(names) == 1 else 'Their'} figures are not comparable with the paper's.</div>"
            for note, names in groups.items()]


def run_block(result: dict, record: Table, column: int) -> str:
    """A result's run record as one line (file, model, method, items, when) that opens to every field and the
    config (``record``: the run-record table, one column per result)."""
    from pathlib import Path

    name = Path(result.get("_path", "?")).name
    run = result.get("run") or {}
    data = result.get("dataset") or {}
    line = [result["benchmark"], str(run.get("model") or (result.get("model") or {}).get("name", "?")),
            f"{result.get('method')} / {result.get('recipe')}"]
    if run.get("n_items") is not None:
        line.append(f"{run['n_items']} items")
    if data.get("name"):
        line.append(f"data {data['name']}")
    if run.get("created"):
        line.append(str(run["created"]))
    rows = "".join(f"<tr><th>{html.escape(str(row[0]))}</th><td>{html.escape(str(row[column]))}</td></tr>"
                   for row in record.rows if row[column] not in ("", None))
    extra = {"config": result.get("config"), "intervals": result.get("intervals"), "dataset": result.get("dataset")}
    return (f"<details class='run'><summary><strong>{html.escape(name)}</strong>: {html.escape(', '.join(line))}"
            f"</summary><table class='record'><caption>Run record: {html.escape(name)}</caption>"
            f"<tbody>{rows}</tbody></table>"
            f"<details><summary>config and intervals</summary><pre>"
            f"{html.escape(json.dumps(extra, indent=1, ensure_ascii=False, default=str))}</pre></details></details>")


def index_page(tables: list[Table], figures, record: Table, results: list[dict], pages: dict[str, str],
               generated: str, version: str) -> str:
    parts = [f"<h1>lexprobe report</h1><p class='note'>{len(results)} result file(s); generated {html.escape(generated)} "
             f"by lexprobe {html.escape(version)}. {html.escape(UNITS)}</p>"]
    if pages:
        titles = bench_titles()
        links = " · ".join(f"<a href='{html.escape(f)}'>{html.escape(titles[b])} items and failures</a>"
                           for b, f in pages.items())
        parts.append(f"<p>Browse every item: {links}</p>")
    parts.append(f"<p class='note'>{FLAG_MARK} marks a figure a reader should not take at face value (at chance, "
                 "few answers parsed, a position bias); the sentence under its table says why.</p>")
    sections = section_titles()
    for bench in sections:
        bench_tables = [t for t in tables if t.benchmark == bench]
        bench_figures = [f for f in figures if f.benchmark == bench]
        if not bench_tables and not bench_figures:
            continue
        parts.append(f"<h2 id='{bench}'>{sections[bench]}</h2>")
        parts += sample_banners([r for r in results if r["benchmark"] == bench])
        parts += [to_html(t) for t in bench_tables]
        for f in bench_figures:
            data = base64.b64encode(f.png()).decode("ascii")
            parts.append(f"<figure><img alt='{html.escape(f.title)}' src='data:image/png;base64,{data}'>"
                         f"<figcaption>{html.escape(f.title)}</figcaption></figure>")
    parts.append("<h2 id='runs'>Run records</h2><p class='note'>what produced each result file; open one for every "
                 "field (versions, model revision, items digest, device, command) and its config. "
                 + html.escape(RECORD_NOTE) + "</p>")
    parts += [run_block(r, record, i + 1) for i, r in enumerate(results)]
    return _page("lexprobe report", "\n".join(parts))


def failure_page(bench: str, rows: list[dict]) -> str:
    columns = failure_columns(bench)
    title = bench_titles()[bench]
    data = {"columns": columns, "rows": rows}
    head = "".join(f"<th>{html.escape(label)}</th>" for _, label in columns)
    from lexprobe.benchmarks.registry import get

    what = get(bench).failure_note
    note = f"<p class='note failure-definition'>Failures only: {html.escape(what)}</p>" if what else ""
    body = f"""<h1>{title}: items and failures</h1>
<p><a href='index.html'>back to the report</a></p>
{note}
<div class='controls'>
<label>search <input id='search' type='search' placeholder='word, definition, sense…'></label>
<label>model <select id='model'><option value=''>all</option></select></label>
<label>task <select id='task'><option value=''>all</option></select></label>
<label>POS <select id='pos'><option value=''>all</option></select></label>
<label><input id='failures' type='checkbox' checked> failures only</label>
<span id='count'></span>
</div>
<table id='items'><thead><tr>{head}</tr></thead><tbody></tbody></table>
<script type='application/json' id='data'>{_json_block(data)}</script>"""
    return _page(f"{title} failures", body, FILTER_JS)
