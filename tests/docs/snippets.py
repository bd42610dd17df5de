"""The commands and code of README.md and docs/*.md, read as a reader copies them.

A fenced block says what it is by its language: ``bash``/``sh``/``shell`` blocks hold commands to run, ``python``
blocks code to run, and the ``SHOWN`` languages (``text``, ``json``, ...) what a reader looks at: output, file
layouts, synopses. A ``bash`` block is cut into commands, one per line (a line ending in ``\\`` goes on on the next);
a line that only sets a shell variable (``M=...``, ``export KEY=...``) is no command of its own but the *prelude*
of every later command of its document, as in the reader's shell. A ``python`` block is one snippet. A snippet is
named, in the test's lists, by its document and its ``key``: the command without its comment, spaces collapsed
(a python block: its first line), so the lists survive edits elsewhere in the document and go stale, loudly,
when the command itself changes.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
#: the languages whose blocks are run, and how
RUNNABLE = {"bash": "shell", "sh": "shell", "shell": "shell", "python": "python"}
#: the languages of blocks a reader looks at and does not run
SHOWN = frozenset({"text", "json", "yaml", "toml", "csv", "html", "tex", "diff", "markdown"})
#: how a line of a shown block that is a command starts: unless it reads as a synopsis, such a command would escape
#: the test
_COMMAND = re.compile(r"(lexprobe|python3?|torchrun|accelerate|vllm|lm_eval|pip|bash|srun|curl) [a-z-]")
#: what marks a synopsis: ``[--option]``, ``a|b``, ``...``, or a placeholder in capitals (``FILE.json``)
_SYNOPSIS = re.compile(r"\[|\||\.\.\.|…|\b[A-Z][A-Z0-9_]{2,}\b")

_FENCE = re.compile(r"^(\s*)(`{3,}|~{3,})\s*([\w+-]*)")
_MARKER = re.compile(r"^\s*<!--\s*(.*?)\s*-->\s*$")
_ASSIGNMENT = re.compile(r"^(export\s+)?[A-Za-z_][A-Za-z0-9_]*=\S*(\s+#.*)?$")


def documents() -> list[Path]:
    """README.md and every docs/*.md, in that order."""
    return [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]


def name(doc: Path) -> str:
    return doc.relative_to(REPO).as_posix()


@dataclass(frozen=True)
class Block:
    doc: str
    line: int  #: the line of the opening fence (1-based)
    lang: str
    text: str
    marker: str | None  #: an HTML comment on the line just above the fence (``recipe: cpu``), which names the block


@dataclass(frozen=True)
class Snippet:
    doc: str
    line: int
    kind: str  #: ``shell`` or ``python``
    text: str  #: the command (continuation lines joined) or the code
    key: str  #: how the test's lists name it (see the module docstring)
    block: Block
    prelude: tuple[str, ...] = field(default=())  #: the document's variable settings before it

    @property
    def id(self) -> str:
        return f"{self.doc}:{self.line}"


def blocks(doc: Path) -> list[Block]:
    """The fenced blocks of ``doc``; an unclosed fence is an error (the rest of the document would be code)."""
    lines = doc.read_text(encoding="utf-8").split("\n")
    found, i = [], 0
    while i < len(lines):
        m = _FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        fence, start = m.group(2), i
        marker = _MARKER.match(lines[i - 1]) if i else None
        body = []
        i += 1
        while i < len(lines) and not re.match(rf"^\s*{re.escape(fence[0])}{{{len(fence)},}}\s*$", lines[i]):
            body.append(lines[i][len(m.group(1)):] if lines[i].startswith(m.group(1)) else lines[i])
            i += 1
        if i == len(lines):
            raise ValueError(f"{name(doc)}:{start + 1}: a fence that is never closed")
        found.append(Block(name(doc), start + 1, m.group(3).lower(), "\n".join(body),
                           marker.group(1) if marker else None))
        i += 1
    return found


def strip_comment(line: str) -> str:
    """``line`` without a shell comment (a ``#`` at a word's start, outside quotes)."""
    quote = None
    for i, ch in enumerate(line):
        if quote:
            quote = None if ch == quote else quote
        elif ch in "'\"":
            quote = ch
        elif ch == "#" and (i == 0 or line[i - 1].isspace()):
            return line[:i].rstrip()
    return line.rstrip()


def key_of(command: str) -> str:
    return " ".join(strip_comment(command).split())


def snippets(doc: Path) -> list[Snippet]:
    """Every command of ``doc``'s shell blocks and every python block, in the document's order."""
    found: list[Snippet] = []
    prelude: list[str] = []
    for block in blocks(doc):
        kind = RUNNABLE.get(block.lang)
        if kind == "python":
            first = next(line for line in block.text.split("\n") if line.strip())
            found.append(Snippet(block.doc, block.line + 1, kind, block.text, first.strip(), block, tuple(prelude)))
            continue
        if kind != "shell":
            continue
        lines = block.text.split("\n")
        i = 0
        while i < len(lines):
            start, command = i, lines[i]
            while command.rstrip().endswith("\\") and i + 1 < len(lines):
                i += 1
                command = command.rstrip()[:-1].rstrip() + " " + lines[i].strip()
            i += 1
            bare = strip_comment(command).strip()
            if not bare:
                continue  # a blank or comment line (a shebang too)
            if _ASSIGNMENT.match(bare):
                prelude.append(bare)
                continue
            found.append(Snippet(block.doc, block.line + 1 + start, kind, command.strip(), key_of(command), block,
                                 tuple(prelude)))
    return found


def shown_commands(doc: Path) -> list[tuple[int, str]]:
    """Lines of ``doc``'s shown blocks that read as a command and not as a synopsis (``[--option]``, ``a|b``,
    ``...``): each would be a command the test never sees."""
    found = []
    for block in blocks(doc):
        if block.lang not in SHOWN:
            continue
        for offset, line in enumerate(block.text.split("\n")):
            text = line.strip()
            if _COMMAND.match(text) and not _SYNOPSIS.search(text):
                found.append((block.line + 1 + offset, text))
    return found
