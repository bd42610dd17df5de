"""Screenshots of every page of a report as a reader sees it in Chromium, on a desktop and on a phone, and
the layout rules the report keeps (issues #29, #34).

    python scripts/report_screenshots.py REPORT_DIR OUT_DIR [--widths 1400 390] [--chromium /usr/bin/chromium]

Writes OUT_DIR/<page>-<width>.png (the whole page; on index.html the run records opened, on an items
page its groups as they open: closed) and OUT_DIR/<page>-<width>-open.png (an items page with its first
group open), and prints per page and width its height and every broken rule of ``layout_problems``
(checked as the page opens, and with every <details> open). Exit code 1 when a rule is broken. Needs the ``playwright`` package and a Chromium.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
        "--disable-component-update", "--disable-sync"]
WIDTHS = (1400, 390)

#: the rules, checked in the page (returns one line per broken rule)
LAYOUT_JS = r"""
() => {
  const out = [];
  const page = document.documentElement, width = page.clientWidth;
  const rendered = e => e.checkVisibility() && e.getClientRects().length > 0;  // not in a closed <details>
  const where = e => '<' + e.tagName.toLowerCase() + (e.className ? ' class="' + e.className + '"' : '') + '> "' +
    (e.textContent || '').trim().slice(0, 50) + '"';
  // 1. the page never scrolls sideways
  if (page.scrollWidth > window.innerWidth) out.push('the page is ' + page.scrollWidth + ' px wide in a ' + window.innerWidth + ' px window');
  // 2. no word may be cut anywhere
  for (const e of document.querySelectorAll('*')) {
    if (getComputedStyle(e).wordBreak === 'break-all') out.push('word-break: break-all on ' + where(e));
  }
  // 3. a table wider than its parent sits in a box that scrolls sideways, the box fits the page, the caption
  //    reads whole without scrolling it, the model column stays in view
  for (const t of document.querySelectorAll('table')) {
    if (!rendered(t)) continue;
    const parent = t.parentElement, overflow = getComputedStyle(parent).overflowX;
    if (t.offsetWidth > parent.clientWidth + 1 && !['auto', 'scroll'].includes(overflow))
      out.push('a table ' + t.offsetWidth + ' px wide in a ' + parent.clientWidth + ' px box that does not scroll: ' + where(t));
    if (parent.getBoundingClientRect().right > width + 1) out.push('a table box runs off the page: ' + where(t));
    const caption = t.querySelector('caption');
    if (caption) {
      const text = document.createRange();
      text.selectNodeContents(caption);
      if (text.getBoundingClientRect().right > Math.min(parent.getBoundingClientRect().right, width) + 1)
        out.push('a caption cut by its box: ' + where(caption));
    }
    if (t.classList.contains('results')) {
      const first = t.querySelector('tbody tr > :first-child');
      if (first && getComputedStyle(first).position !== 'sticky') out.push('the model column does not stay in view: ' + where(t));
    }
  }
  // 4. every figure links to its file at full size
  for (const img of document.querySelectorAll('img')) {
    const a = img.closest('a[href]');
    if (!a || a.getAttribute('href').startsWith('data:')) out.push('an image with no link to its file: ' + img.alt.slice(0, 60));
  }
  // 5. no word broken across lines (words: runs of letters and digits, between spaces, hyphens, slashes, ...)
  const blocks = document.querySelectorAll('td, th, caption, summary, figcaption, h1, h2, p, label, strong');
  const seen = new Set();
  for (const b of blocks) {
    if (!rendered(b)) continue;
    const walker = document.createTreeWalker(b, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      if (seen.has(node)) continue;
      seen.add(node);
      for (const m of node.data.matchAll(/[\p{L}\p{N}]+/gu)) {
        if (m[0].length < 2 || m[0].length > 24) continue;  // a digest is no word: it may scroll in its box
        const r = document.createRange();
        r.setStart(node, m.index); r.setEnd(node, m.index + m[0].length);
        const tops = new Set([...r.getClientRects()].filter(x => x.width > 0).map(x => Math.round(x.top)));
        if (tops.size > 1) out.push('"' + m[0] + '" broken across lines in ' + where(node.parentElement));
      }
    }
  }
  return out;
}
"""


def layout_problems(page) -> list[str]:
    """The rules ``page`` (a playwright page, loaded) breaks, one line each."""
    return page.evaluate(LAYOUT_JS)


def main(argv: list[str]) -> int:
    from playwright.sync_api import sync_playwright

    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("report", type=Path)
    p.add_argument("out", type=Path)
    p.add_argument("--widths", type=int, nargs="+", default=list(WIDTHS))
    p.add_argument("--chromium", default="/usr/bin/chromium")
    args = p.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    broken = 0
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=args.chromium, headless=True, args=ARGS)
        for width in args.widths:
            page = browser.new_page(viewport={"width": width, "height": 900})
            for html in sorted(args.report.resolve().glob("*.html")):
                page.goto(html.as_uri())
                problems = layout_problems(page)
                height = page.evaluate("document.documentElement.scrollHeight")
                if page.locator("details.run").count():
                    page.evaluate("document.querySelectorAll('details').forEach(d => d.open = true)")
                    problems += [f"(run records open) {x}" for x in layout_problems(page)]
                page.screenshot(path=str(args.out / f"{html.stem}-{width}.png"), full_page=True)
                if page.locator("details.group").count():
                    page.evaluate("document.querySelector('details.group').open = true")
                    page.screenshot(path=str(args.out / f"{html.stem}-{width}-open.png"), full_page=True)
                    page.evaluate("document.querySelectorAll('details.group').forEach(d => d.open = true)")
                    problems += [f"(every group open) {x}" for x in layout_problems(page)]
                print(f"{html.name} at {width} px: {height} px tall" + "".join(f"\n  {x}" for x in problems))
                broken += len(problems)
            page.close()
        browser.close()
    return 1 if broken else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
