"""Text from the data in a dataset card and an lm-eval README is Markdown text, never Markdown: a file name, a
source's name, the recorded command and a CoDA21 canary go in through ``tables.md_text`` / ``md_code``, so no
heading, HTML, link or image appears that lexprobe did not write, and the text is still there to read.

Each document is parsed with markdown-it (CommonMark, as the Hub renders a card) and compared with the same
document written from harmless names.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from lexprobe.cli import main
from tests.export.helpers import SMALL_CODA, write_small_wdlmpro
from tests.optional import needs_package

#: text a user or a source could put in a name or a canary: a heading, HTML, a link, an image, backticks, a blank line
INJECTED = "a\n## Licence: MIT\n\n<img src=x onerror=alert(1)> [here](e.example) ![i](i.png) ``x`` b"


def structure(text: str) -> tuple[list[str], list[str]]:
    """(the headings, the kinds of HTML, link and image tokens) of Markdown ``text`` (a card: its prose only)."""
    markdown_it = needs_package("markdown_it")
    if text.startswith("---\n"):
        text = text.split("\n---\n", 1)[1]  # the YAML header is data for the Hub, not Markdown
    tokens = markdown_it.MarkdownIt("commonmark").parse(text)
    headings = [tokens[i + 1].content for i, t in enumerate(tokens) if t.type == "heading_open"]
    inline = [c for t in tokens if t.type == "inline" for c in t.children or []]
    risky = [t.type for t in tokens + inline if t.type in ("html_block", "html_inline", "link_open", "image")]
    return headings, risky


def code_spans(text: str) -> list[str]:
    markdown_it = needs_package("markdown_it")
    tokens = markdown_it.MarkdownIt("commonmark").parse(text.split("\n---\n", 1)[-1])
    return [c.content for t in tokens if t.type == "inline" for c in t.children or [] if c.type == "code_inline"]


def export(command: list[str], data: Path, out: Path) -> Path:
    assert main(["export", *command, "--data", str(data), "--out", str(out)]) == 0
    return out / "README.md"


@pytest.mark.parametrize("command", [["hf", "wdlmpro"], ["lm-eval", "wdlmpro"], ["hf", "coda21"]])
def test_a_file_name_cannot_write_markdown_into_the_card_or_readme(command, tmp_path):
    """``--data $'a\\n## Licence: MIT\\nb.jsonl'`` once put a heading into the card: the name is in the command,
    the sources table and "How it was built"."""
    (tmp_path / "plain").mkdir()
    (tmp_path / "crafted").mkdir()
    if command[1] == "wdlmpro":
        plain, crafted = (write_small_wdlmpro(tmp_path / d / n) for d, n in (("plain", "b.jsonl"),
                                                                            ("crafted", INJECTED + ".jsonl")))
    else:
        plain, crafted = tmp_path / "plain" / "b.json", tmp_path / "crafted" / (INJECTED + ".json")
        for path in (plain, crafted):
            path.write_text(json.dumps({k: v for k, v in SMALL_CODA.items() if k != "canary"}))
    expected = structure(export(command, plain, tmp_path / "plain-out").read_text())
    text = export(command, crafted, tmp_path / "crafted-out").read_text()
    assert structure(text) == expected
    assert any("## Licence: MIT" in span and "<img" in span for span in code_spans(text))  # shown, as written


@pytest.mark.parametrize("command", [["hf", "coda21"], ["lm-eval", "coda21"]])
def test_a_canary_string_is_shown_not_rendered(command, tmp_path):
    """A CoDA21 file's canary string was pasted raw into the card and the lm-eval README."""
    texts = {}
    for name, canary in (("plain", "PLAIN CANARY"), ("crafted", INJECTED)):
        source = tmp_path / f"{name}.json"
        source.write_text(json.dumps({**SMALL_CODA, "canary": canary}))
        texts[name] = export(command, source, tmp_path / f"{name}-out").read_text()
    assert structure(texts["crafted"]) == structure(texts["plain"])
    assert any(span.startswith("a\\n## Licence: MIT\\n\\n<img") and "``x``" in span for span in code_spans(texts["crafted"]))


def test_markdown_text_and_code_keep_every_character_visible():
    from lexprobe.tables import md_code, md_text

    for text in (INJECTED, "`", "``a``", " x ", "\x1b[2J\x1b]0;TITLE\x07", "a\r\nb\tc\u202ed"):
        for rendered in (md_text(text), md_code(text)):
            assert "\n" not in rendered and "\x1b" not in rendered and "\u202e" not in rendered
            headings, risky = structure(f"intro {rendered} end\n")
            assert headings == [] and risky == [], (text, rendered)
    assert code_spans(f"x {md_code('``a``')} y") == ["``a``"]
