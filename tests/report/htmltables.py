"""Read the tables of a report page back: caption -> rows of (text, attributes) cells."""

from __future__ import annotations

from html.parser import HTMLParser


class _Tables(HTMLParser):
    def __init__(self):
        super().__init__()
        self.tables: dict[str, list[list[tuple[str, dict]]]] = {}
        self.images: list[str] = []
        self._caption = self._row = self._cell = None
        self._rows = None
        self._in_caption = False

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "table":
            self._rows, self._caption = [], ""
        elif tag == "caption":
            self._in_caption = True
        elif tag == "tr" and self._rows is not None:
            self._row = []
        elif tag in ("td", "th") and self._row is not None:
            self._cell = ["", attrs]
        elif tag == "img":
            self.images.append(attrs.get("src", ""))

    def handle_endtag(self, tag):
        if tag == "caption":
            self._in_caption = False
        elif tag in ("td", "th") and self._cell is not None:
            self._row.append((self._cell[0].strip(), self._cell[1]))
            self._cell = None
        elif tag == "tr" and self._row is not None:
            self._rows.append(self._row)
            self._row = None
        elif tag == "table" and self._rows is not None:
            self.tables[self._caption] = self._rows
            self._rows = None

    def handle_data(self, data):
        if self._in_caption:
            self._caption += data
        elif self._cell is not None:
            self._cell[0] += data


def read_page(text: str) -> _Tables:
    parser = _Tables()
    parser.feed(text)
    return parser


def row_by_label(rows, label):
    for row in rows:
        if row[0][0] == label:
            return row
    raise AssertionError(f"no row {label!r} in {[r[0][0] for r in rows]}")


def run_records(page: _Tables) -> dict[str, dict[str, str]]:
    """{result file: {field: value}} of a report's run records (one "Run record: FILE" table per result)."""
    prefix = "Run record: "
    return {caption[len(prefix):]: {row[0][0]: row[1][0] for row in rows if len(row) == 2}
            for caption, rows in page.tables.items() if caption.startswith(prefix)}
