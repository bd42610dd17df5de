"""The human page end to end in a real browser (Playwright driving Debian's Chromium)."""

import json
import shutil
from pathlib import Path

import pytest

from lexprobe.cli import main
from tests.human.helpers import RunningServer, item_set

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed")
if not Path(CHROMIUM).exists():  # pragma: no cover - CI installs it
    pytest.skip("chromium is not installed (apt-get install chromium)", allow_module_level=True)


@pytest.fixture(scope="module")
def browser():
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=["--no-sandbox"])
        yield b
        b.close()


def start(page, url, code):
    page.goto(url)
    page.fill("#participant", code)
    page.click("#start")
    page.wait_for_selector("#item-screen:not(.hidden), #done-screen:not(.hidden)")


def current_item(page, items):
    return items[page.get_attribute("#item", "data-item-id")]


def answer_choice(page, items, correct=True):
    item = current_item(page, items)
    label = item["answer"] if correct else next(o["label"] for o in item["options"] if o["label"] != item["answer"])
    before = page.text_content("#progress")
    page.check(f'input[name="choice"][value="{label}"]')
    page.click("#submit")
    page.wait_for_function("b => document.querySelector('#progress').textContent !== b "
                           "|| !document.querySelector('#done-screen').classList.contains('hidden')", arg=before)
    return item["id"], label


def test_wdlmpro_items_survive_a_server_restart_and_a_closed_browser(tmp_path, browser):
    s = item_set(tmp_path, "wdlmpro")
    items = {it["id"]: it for it in s["items"]}
    db = tmp_path / "answers.sqlite"
    srv = RunningServer(s, db)
    port = srv.port
    page = browser.new_page()
    start(page, srv.url, "ann")
    assert page.text_content("#progress") == "Item 1 of 4"
    page.click("#submit")  # nothing chosen: refused on the page, nothing stored
    assert "choose one option" in page.text_content("#message")
    given = dict([answer_choice(page, items), answer_choice(page, items, correct=False)])

    srv.stop()  # the server goes down midway ...
    srv = RunningServer(s, db, port=port)  # ... and comes back on the same file
    page.close()  # the participant closed the browser too
    page = browser.new_page()
    start(page, srv.url, "ann")
    assert page.text_content("#progress") == "Item 3 of 4"
    given.update([answer_choice(page, items), answer_choice(page, items)])
    assert page.is_visible("#done-screen")
    srv.stop()

    out = tmp_path / "results"
    assert main(["human", "score", "--db", str(db), "--out", str(out)]) == 0
    results = {t: json.loads(next(out.glob(f"human-wdlmpro-*-{t}-ann.json")).read_text()) for t in ("w2d", "d2w")}
    stored = {(r["task"], r["target"]): r["answer"] for res in results.values() for r in res["instances"]}
    assert stored == {(items[i]["task"], items[i]["target"]): a for i, a in given.items()}
    assert sum(given[i] == items[i]["answer"] for i in given) == 3
    for task, res in results.items():
        expected = [given[i] == items[i]["answer"] for i in given if items[i]["task"] == task]
        assert res["metrics"][task]["all"]["p_at_1"] == pytest.approx(sum(expected) / len(expected))


def test_coda_alignment_in_the_browser(tmp_path, browser):
    s = item_set(tmp_path, "coda21", subset=2)
    items = {it["id"]: it for it in s["items"]}
    db = tmp_path / "answers.sqlite"
    srv = RunningServer(s, db)
    page = browser.new_page()
    start(page, srv.url, "bob")
    for n in range(2):
        item = current_item(page, items)
        selects = page.locator("select[data-context]")
        assert selects.count() == len(item["contexts"])
        assert "_____" in page.text_content("#item")
        if n == 0:  # the same definition twice is refused before it is sent
            for c in range(selects.count()):
                selects.nth(c).select_option(item["answer"][0])
            page.click("#submit")
            assert "exactly one sentence" in page.text_content("#message")
        for c, label in enumerate(item["answer"]):
            selects.nth(c).select_option(label)
        before = page.text_content("#progress")
        page.click("#submit")
        page.wait_for_function("b => document.querySelector('#progress').textContent !== b "
                               "|| !document.querySelector('#done-screen').classList.contains('hidden')", arg=before)
    assert page.is_visible("#done-screen")
    srv.stop()
    out = tmp_path / "results"
    assert main(["human", "score", "--db", str(db), "--out", str(out)]) == 0
    result = json.loads(next(out.glob("human-coda21-*-bob.json")).read_text())
    both = result["metrics"]["alignment"]["all"]
    assert both["accuracy"] == 1.0 and both["n"] == 2
    assert result["baselines"]["random"]["alignment"]["all"]["accuracy"] == pytest.approx((1 / 3 + 1 / 2) / 2)
