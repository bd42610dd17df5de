"""#33 item 10: the report's pages are rendered through jinja2 with autoescape, so no text of a result file
becomes markup. Every string of real results of every benchmark and method (model names, items,
definitions, contexts, generated answers, data paths, run records, the sample banner's words, the
result file names, hence the captions made of them) is given a hostile tail; every page must show it as
text, and no element, attribute or script may come of it (checked by parsing, and in Chromium: no dialog,
no element the payload asks for, also after the items pages' script has drawn every row)."""

from __future__ import annotations

import json
from html.parser import HTMLParser
from pathlib import Path

import pytest

from lexprobe.report.build import write_report
from tests.report.htmltables import read_page

#: markup (a script, an event handler, an attribute break-out, an entity) and a right-to-left override
PAYLOAD = "<script>alert('s')</script><img src=x onerror=alert('i')>'\"><svg onload=alert('v')>&amp;\u202e!"
#: the same for a file name (no "/")
FILE_PAYLOAD = "<img src=x onerror=alert('f')>'\"&\u202e"
#: strings a result's reader matches on (names of benchmarks, methods, tasks, readings, parts of speech, the hits
#: string of a query, a generated answer's failure kind), left as they are
STRUCTURE = {"benchmark", "method", "recipe", "kind", "model_kind", "pos", "task", "tasks", "readings", "hits",
             "parameter", "failure", "corpus", "bucket", "schema_version", "reading", "debias", "template", "labels",
             "align", "normalize", "pattern", "pll", "pool", "match_pos", "bucket_by", "most_chosen"}
#: the elements the templates write (and the items pages' script draws)
ELEMENTS = {"html", "head", "meta", "title", "style", "body", "h1", "h2", "p", "a", "div", "table", "caption", "thead",
            "tbody", "tr", "th", "td", "span", "br", "wbr", "strong", "code", "figure", "img", "figcaption", "details",
            "summary", "pre", "label", "input", "select", "option", "script", "button"}


def poison(obj, key: str | None = None):
    if isinstance(obj, dict):
        return {k: poison(v, k) for k, v in obj.items()}
    if isinstance(obj, list):
        return [poison(v, key) for v in obj]
    if isinstance(obj, str) and key not in STRUCTURE:
        return obj + PAYLOAD
    return obj


class Page(HTMLParser):
    """Elements, attributes, text and script bodies of a page, as a browser's parser splits them."""

    def __init__(self, text: str):
        super().__init__(convert_charrefs=True)
        self.elements: list[tuple[str, dict]] = []
        self.text: list[str] = []
        self.scripts: list[tuple[dict, str]] = []
        self._script: dict | None = None
        self.feed(text)
        self.close()

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        self.elements.append((tag, attrs))
        if tag == "script":
            self._script = attrs
            self.scripts.append((attrs, ""))

    def handle_endtag(self, tag):
        if tag == "script":
            self._script = None

    def handle_data(self, data):
        if self._script is not None:
            self.scripts[-1] = (self.scripts[-1][0], self.scripts[-1][1] + data)
        else:
            self.text.append(data)

    def handle_comment(self, data):
        raise AssertionError(f"a comment in the page: {data[:80]!r}")


@pytest.fixture(scope="module")
def hostile_report(every_kind_of_result, tmp_path_factory):
    folder = tmp_path_factory.mktemp("hostile")
    files = []
    for path in every_kind_of_result:
        result = json.loads(Path(path).read_text())
        result["dataset"] = {"name": "data", "sample": True, "what": "a stand-in set", "get": "lexprobe data fetch x"}
        result["config"]["limit"] = 5
        out = folder / f"{Path(path).stem} {FILE_PAYLOAD}.json"
        out.write_text(json.dumps(poison(result)))
        files.append(out)
    report = folder / "report"
    write_report(files, report)
    return report


def _safe(page: Page, name: str) -> None:
    for tag, attrs in page.elements:
        assert tag in ELEMENTS, f"{name}: a <{tag}> element"
        assert not [a for a in attrs if a.startswith("on")], f"{name}: an event handler on <{tag}>: {attrs}"
        if tag == "img":
            assert attrs["src"].startswith("data:image/png;base64,"), f"{name}: an image from {attrs['src'][:40]}"
        for a, value in attrs.items():
            assert not (value or "").lstrip().lower().startswith("javascript:"), f"{name}: {a}={value[:40]}"


def test_every_page_shows_hostile_text_as_text(hostile_report):
    pages = {p.name: p.read_text() for p in hostile_report.glob("*.html")}
    assert sorted(pages) == ["coda21.html", "index.html", "senserank.html", "wdlmpro.html"]
    for name, html in pages.items():
        for raw in ("<script>alert", "<img src=x", "<svg", "'\"><"):
            assert raw not in html, f"{name}: {raw!r} unescaped"
        page = Page(html)
        _safe(page, name)
        shown = "".join(page.text)
        if name == "index.html":
            assert page.scripts == []
            # the payload is there, as text: in model names, file names, banners, captions, run records
            assert shown.count(PAYLOAD) >= 20 and FILE_PAYLOAD in shown
            continue
        # items pages: the page's script and its JSON block, the rows' texts in the block only
        assert [a.get("type") for a, _ in page.scripts] == ["application/json", None]
        block = page.scripts[0][1]
        assert "<" not in block and ">" not in block and "&" not in block
        rows = json.loads(block)["rows"]
        texts = [str(v) for r in rows for k, v in r.items() if k not in ("ok", "pos", "task")]
        assert rows and sum(PAYLOAD in t for t in texts) >= len(rows)  # every row carries it, as data
        assert PAYLOAD not in page.scripts[1][1]  # the script is the package's, nothing of the data in it


def test_every_field_reaches_the_index_page_escaped(hostile_report, every_kind_of_result):
    """The hostile tail is shown in each kind of field of index.html: model names (tables, figure captions,
    run records), result file names, the sample banner, table captions and notes, run-record values."""
    html = (hostile_report / "index.html").read_text()
    page = Page(html)
    in_text = "".join(page.text)
    kinds, titles = [], []  # each image with its figure's class: the report's own figures name their kind
    for tag, attrs in page.elements:
        if tag == "figure":
            kinds.append(attrs.get("class", ""))
        elif tag == "img":
            titles.append((kinds[-1], attrs.get("alt", "")))
    own = [t for kind, t in titles if kind in ("forest", "wsd-senses", "by-k")]  # of every model: named in the plot
    assert own and titles and all(PAYLOAD in t for kind, t in titles if t not in own)  # the others name the model
    assert all(t + " (full size)" in in_text for _, t in titles)
    # captions made of a model name (a layer sweep's) or a data file's name (CoDA21's: what follows the
    # payload's last "/")
    captions = [c for c in read_page(html).tables if "<svg onload=alert('v')>" in c]
    assert len(captions) >= 3, list(read_page(html).tables)
    for field in ("a stand-in set" + PAYLOAD, "lexprobe data fetch x" + PAYLOAD,  # banner
                  f"{FILE_PAYLOAD}.json",  # file names
                  "cpu" + PAYLOAD, "float32" + PAYLOAD):  # run-record values
        assert field in in_text, field
    for path in every_kind_of_result:
        model = json.loads(Path(path).read_text())["model"]["name"]
        assert model + PAYLOAD in in_text, model


CHROMIUM = "/usr/bin/chromium"
BROWSER_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
                "--disable-component-update", "--disable-sync"]


@pytest.mark.skipif(not Path(CHROMIUM).exists(), reason="Chromium not installed")
def test_no_payload_runs_in_a_browser(hostile_report):
    sync_api = pytest.importorskip("playwright.sync_api", reason="playwright not installed")
    dialogs: list[str] = []
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=BROWSER_ARGS)
        page = browser.new_page()
        page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        for html in sorted(hostile_report.glob("*.html")):
            page.goto(html.as_uri())
            if html.name != "index.html":  # every row drawn: all items, every group open, all pages of rows
                page.uncheck("#failures")
                page.evaluate("document.querySelectorAll('details').forEach(d => d.open = true)")
                while page.locator("button.more").count():
                    page.locator("button.more").first.click()
                assert page.locator("table.items tbody tr").count() > 0
                assert PAYLOAD in page.locator("table.items").first.inner_text()
            assert page.locator("svg, img[src='x']").count() == 0, html.name
            assert page.locator("script").count() == (0 if html.name == "index.html" else 2)
            found = page.evaluate("[...document.querySelectorAll('*')].flatMap(e => [...e.attributes]"
                                  ".filter(a => a.name.startsWith('on')).map(a => e.tagName + ' ' + a.name))")
            assert found == [], html.name
        browser.close()
    assert dialogs == [] and errors == []
