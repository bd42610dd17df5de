"""CoNLL-U and its column extensions (STREUSLE's conllulex) read with the ``conllu`` library.

``conllu`` splits sentences, reads ``sent_id`` and token ids (multiword ranges and empty nodes are skipped here),
but silently takes lines with too few or too many columns: the id parser below checks the count. FEATS, HEAD and
DEPS stay raw strings (a malformed dependency column does not reject a sense-annotated file). Every problem is one
``DataError`` naming the file and line.
"""

from __future__ import annotations

import gzip
import zlib
from pathlib import Path
from typing import Any, Iterator, NamedTuple, Sequence, TextIO

import conllu
from conllu.exceptions import ParseException
from conllu.parser import DEFAULT_FIELDS, parse_id_value, parse_line

from lexprobe.errors import DataError

CONLLU_FIELDS = DEFAULT_FIELDS
# STREUSLE's CONLLULEX.md: the 10 CoNLL-U columns, then 9 lexical-semantic ones
CONLLULEX_FIELDS = (*DEFAULT_FIELDS, "smwe", "lexcat", "lexlemma", "ss", "ss2", "wmwe", "wcat", "wlemma", "lextag")

READ_ERRORS = (OSError, EOFError, ValueError, zlib.error)  # ValueError: UTF-8 decoding


class Sentence(NamedTuple):
    sent_id: str  # "" when the block has no ``# sent_id`` comment
    words: list  # conllu Tokens with integer ids, in order


class _BadLine(Exception):
    """Raised by the field parsers; not a ParseException, so conllu passes it on unchanged."""


def _raw(line: list[str], i: int) -> str:
    return line[i]


def _field_parsers(fields: Sequence[str], exact: bool, name: str) -> dict:
    n = len(fields)

    def parse_id(line: list[str], i: int):
        if exact and len(line) != n:
            raise _BadLine(f"a line with {len(line)} tab-separated columns; {name} has {n}")
        try:
            tid = parse_id_value(line[i])
        except ParseException:
            tid = None
        if tid is None or len(line) < 2 or not line[1].strip():
            second = line[1] if len(line) > 1 else ""
            raise _BadLine(f"expected a token number and a word form in the first two columns, "
                           f"got {line[0][:20]!r} and {second[:20]!r}")
        if isinstance(tid, int) and len(line) < n:
            raise _BadLine(f"a line with {len(line)} tab-separated columns; {name} has {n}")
        return tid

    return {"id": parse_id, "feats": _raw, "head": _raw, "deps": _raw}


class _Lines:
    """The file's lines, counted, keeping the current sentence block for error messages."""

    def __init__(self, f: TextIO):
        self._f = f
        self.block: list[str] = []
        self.block_start = 0  # line number of the block's first line
        self._number = 0
        self._gap = True

    def read(self, *args):  # parse_incr only checks that it exists
        return self._f.read(*args)

    def __iter__(self):
        for line in self._f:
            self._number += 1
            if not line.strip():
                self._gap = True
            elif self._gap:
                self.block, self.block_start, self._gap = [line], self._number, False
            else:
                self.block.append(line)
            yield line


def _locate(lines: _Lines, fields, parsers, err: Exception, name: str) -> tuple[int, str]:
    """The first line of the failing block that does not parse on its own, and why."""
    for k, raw in enumerate(lines.block):
        text = raw.strip()
        if not text or text.startswith("#"):
            continue
        try:
            parse_line(text, fields, dict(parsers))
        except _BadLine as line_err:
            return lines.block_start + k, str(line_err)
        except ParseException as line_err:  # conllu's own check: a line without columns
            return lines.block_start + k, f"{str(line_err).rstrip('.')}; {name} has {len(fields)} tab-separated columns"
    return lines.block_start, str(err)


def open_text(path: Path) -> TextIO:
    from lexprobe.data.files import require_regular

    require_regular(path)
    if path.suffix == ".gz":
        return gzip.open(path, "rt", encoding="utf-8")
    return path.open(encoding="utf-8")


def read_sentences(path: Path, fields: Sequence[str] = CONLLU_FIELDS, exact: bool = True,
                   name: str = "CoNLL-U") -> Iterator[Sentence]:
    """Sentences with at least one word, streamed. ``exact``: every line has exactly
    ``len(fields)`` columns (else only word lines need at least that many)."""
    parsers = _field_parsers(fields, exact, name)
    try:
        with open_text(path) as f:
            lines: Any = _Lines(f)  # an iterator of lines is all parse_incr reads
            sentences = conllu.parse_incr(lines, fields=fields, field_parsers=parsers)
            while True:
                try:
                    tokens = next(sentences)
                except StopIteration:
                    return
                except (ParseException, _BadLine) as err:
                    lineno, problem = _locate(lines, fields, parsers, err, name)
                    raise DataError(f"{path}:{lineno}: {problem}") from None
                words = [t for t in tokens if isinstance(t["id"], int)]
                if words:
                    yield Sentence(str(tokens.metadata.get("sent_id") or ""), words)
    except READ_ERRORS as err:
        raise DataError(f"cannot read {path}: {type(err).__name__}: {str(err)[:100]}") from None
