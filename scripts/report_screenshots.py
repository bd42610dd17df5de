"""Screenshots of every page of a report as a reader sees it at 1400 x 900 in Chromium (issue #29).

    python scripts/report_screenshots.py REPORT_DIR OUT_DIR [--chromium /usr/bin/chromium]

Writes OUT_DIR/<page>.png (the whole page, the run records opened) and prints, per page, its width
against the window's: a page wider than the window scrolls sideways, which the report must not do.
Exit code 1 when any page does. Needs the ``playwright`` package and a Chromium.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
        "--disable-component-update", "--disable-sync"]


def main(argv: list[str]) -> int:
    from playwright.sync_api import sync_playwright

    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("report", type=Path)
    p.add_argument("out", type=Path)
    p.add_argument("--chromium", default="/usr/bin/chromium")
    args = p.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    wide = 0
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=args.chromium, headless=True, args=ARGS)
        page = browser.new_page(viewport={"width": 1400, "height": 900})
        for html in sorted(args.report.resolve().glob("*.html")):
            page.goto(html.as_uri())
            width, inner = page.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")
            wide += width > inner
            page.evaluate("document.querySelectorAll('details.run').forEach(d => d.open = true)")
            page.screenshot(path=str(args.out / f"{html.stem}.png"), full_page=True)
            print(f"{html.name}: {width} px wide in a {inner} px window{' (scrolls sideways)' if width > inner else ''}")
        browser.close()
    return 1 if wide else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
