"""#34 item 7: the report read in Chromium on a desktop (1400 px) and on a phone (390 px), built from real
results of every benchmark and method. On every page, as it opens and with every <details> open and every
row drawn (``scripts/report_screenshots.py``'s rules): no page wider than the window, a table wider than
its place scrolls in its own box with the model column in view and its caption whole, no word broken
across lines and no ``word-break: break-all``, every figure inside a link to its file. The items pages open
with their groups closed, so their height is bounded by the number of groups, not of items.

``LEXPROBE_REPORT_SHOTS=DIR`` keeps the screenshots (index and the WDLMPro items page at both widths).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from lexprobe.report.build import write_report
from lexprobe.report.html import PAGE_ROWS
from scripts.report_screenshots import ARGS, layout_problems

CHROMIUM = "/usr/bin/chromium"
WIDTHS = (1400, 390)
#: an items page with its groups closed: its head (title, notes, filters) and one line or two per group
HEAD_PX, GROUP_PX = 700, 80

pytestmark = pytest.mark.skipif(not Path(CHROMIUM).exists(), reason="Chromium not installed")


@pytest.fixture(scope="module")
def report(every_kind_of_result, tmp_path_factory):
    out = tmp_path_factory.mktemp("layout") / "report"
    write_report(every_kind_of_result, out)
    return out


@pytest.fixture(scope="module")
def browser():
    sync_api = pytest.importorskip("playwright.sync_api", reason="playwright not installed")
    with sync_api.sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=ARGS)
        yield chromium
        chromium.close()


def _shots(tmp_path) -> Path:
    folder = Path(os.environ.get("LEXPROBE_REPORT_SHOTS") or tmp_path)
    folder.mkdir(parents=True, exist_ok=True)
    return folder


@pytest.mark.parametrize("width", WIDTHS)
def test_every_page_keeps_the_layout_rules(report, browser, width, tmp_path):
    shots = _shots(tmp_path)
    page = browser.new_page(viewport={"width": width, "height": 900})
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    pages = sorted(report.glob("*.html"))
    assert [p.name for p in pages] == ["coda21.html", "index.html", "senserank.html", "wdlmpro.html"]
    for html in pages:
        page.goto(html.as_uri())
        assert layout_problems(page) == [], f"{html.name} at {width} px"
        if html.name in ("index.html", "wdlmpro.html"):
            page.screenshot(path=str(shots / f"{html.stem}-{width}.png"), full_page=True)
        groups = page.locator("details.group")
        if html.name == "index.html":
            assert groups.count() == 0
            images = page.eval_on_selector_all("img", "imgs => imgs.map(i => i.closest('a').getAttribute('href'))")
            assert images and all((report / href).is_file() for href in images)  # the PNG at full size
        else:
            page.uncheck("#failures")  # every item
            n = groups.count()
            assert n >= (4 if html.name == "wdlmpro.html" else 1)  # WDLMPro: 2 models, 2 readings, 2 tasks
            assert groups.evaluate_all("ds => ds.every(d => !d.open)")
            height = page.evaluate("document.body.getBoundingClientRect().bottom + scrollY")  # not the window
            assert height <= HEAD_PX + GROUP_PX * n, f"{html.name}: {height} px tall with {n} groups closed"
            groups.first.evaluate("d => d.open = true")
            drawn = groups.first.locator("tbody tr").count()
            assert 0 < drawn <= PAGE_ROWS
            if html.name == "wdlmpro.html":
                page.screenshot(path=str(shots / f"{html.stem}-{width}-open.png"), full_page=True)
        page.evaluate("document.querySelectorAll('details').forEach(d => d.open = true)")
        while page.locator("button.more").count():  # every row drawn
            page.locator("button.more").first.click()
        assert layout_problems(page) == [], f"{html.name} at {width} px, every <details> open"
    page.close()
    assert errors == []


def test_the_model_column_stays_in_view_on_a_phone(report, browser):
    """A results table wider than a 390 px screen scrolls in its box; scrolled, its first column stays put."""
    page = browser.new_page(viewport={"width": 390, "height": 900})
    page.goto((report / "index.html").as_uri())
    moved = page.evaluate("""() => [...document.querySelectorAll('.tablebox')]
        .filter(b => b.querySelector('table.results') && b.scrollWidth > b.clientWidth + 50)
        .map(b => {
          const cell = b.querySelector('tbody tr > td'), before = cell.getBoundingClientRect().left;
          b.scrollLeft = 200;
          return [b.scrollLeft, Math.round(cell.getBoundingClientRect().left - before)];
        })""")
    assert len(moved) >= 5  # the phone has tables to scroll
    assert all(scrolled > 0 and shift == 0 for scrolled, shift in moved), moved
    page.close()
