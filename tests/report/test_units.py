"""One unit convention (#34 item 5): every score lexprobe shows is a percentage, said once at the top of the
report and its tables.md; the items pages and docs/results.md follow it; the result JSON keeps fractions."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

from lexprobe.report.build import write_report
from lexprobe.tables import UNITS

REPO = Path(__file__).resolve().parents[2]


def test_the_report_says_the_convention_once_and_keeps_fractions_in_json(result_files, tmp_path):
    out = tmp_path / "report"
    write_report([result_files[k] for k in ("wdlmpro-bert", "coda21-gpt2", "senserank-layer1")], out)
    assert (out / "tables.md").read_text(encoding="utf-8").startswith(UNITS)
    assert UNITS in (out / "tables.tex").read_text(encoding="utf-8")
    assert (out / "index.html").read_text(encoding="utf-8").count("percentages (x100") == 1
    raw = json.loads(Path(result_files["wdlmpro-bert"]).read_text())
    assert 0.0 <= raw["metrics"]["w2d"]["all"]["rank_score"] <= 1.0  # the file keeps the fraction


def test_items_pages_show_percentages(result_files):
    from lexprobe.benchmarks.coda21.results import failure_rows as coda_rows
    from lexprobe.benchmarks.senserank.results import failure_rows as sense_rows

    coda = json.loads(Path(result_files["coda21-gpt2"]).read_text())
    for row, group in zip(coda_rows(coda), coda["instances"]):
        assert row["score"].startswith(f"{100 * group['accuracy']:.1f} (k=")
    sense = json.loads(Path(result_files["senserank-layer1"]).read_text())
    row, query = sense_rows(sense)[0], sense["instances"][0]
    assert row["score"].startswith(f"{100 * query['ap']:.1f}")


def test_docs_results_tables_are_the_generator_output_in_percent():
    """docs/results.md's WDLMPro and choose tables are scripts/results_markdown.py's, from the committed rows: RS
    and position shares x100, no fraction left in them."""
    sys.path.insert(0, str(REPO / "scripts"))
    try:
        import results_markdown
    finally:
        sys.path.pop(0)
    rows = json.loads((REPO / "docs" / "results-rows.json").read_text(encoding="utf-8"))
    doc = (REPO / "docs" / "results.md").read_text(encoding="utf-8")
    for table in (results_markdown.wdlmpro(rows), results_markdown.choose(rows)):
        assert table in doc
        assert not re.search(r"(?<![\d.])0\.\d\d(?![\d%])", table), table  # no fraction such as 0.78
    published = doc[doc.index("Published (Senel"):doc.index("Humans (paper Table 8")]
    assert "| GPT-2 small (124M) | 38.7 | 76 |" in published and "0.7" not in published
