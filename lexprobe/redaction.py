"""What leaves the program is safe: secrets masked, terminal controls escaped, long lists of notices cut.

A secret (an API key) is registered where it is read; text passes ``redact`` where it leaves: the CLI's
standard streams (``RedactingStream``), result files, resume-log lines and what an endpoint's server sends
back. ``clip`` redacts first, then cuts, so a key straddling the cut leaves no prefix behind. A secret is
also registered JSON-escaped, so ``redact`` finds it in serialised JSON too.

Text from outside (a server's error body, a model id, a file name, a data row) may hold characters that drive
the terminal instead of printing: ``\\x1b[2J`` clears it, ``\\x1b]0;...\\x07`` retitles it, a bidirectional
override shows text in another order. ``printable`` writes each as an escape; the CLI's streams pass every
write through it, so no message (error, warning, notice, log line, table) can forget it. The same streams
cut a run of more than ``NOTICE_RUN`` notices of one kind (``lexprobe: skipping ...`` once printed 200,000
lines) and a notice longer than ``NOTICE_CHARS``, each with a count of what was not shown.
"""

from __future__ import annotations

import atexit
import json
import os
import re
import sys
import threading
from typing import Any, TextIO

#: what a secret is replaced with
MASK = "***"
#: where an endpoint's API key is read from, in order (``backends.client.api_key``)
KEY_VARIABLES = ("LEXPROBE_API_KEY", "OPENAI_API_KEY")

_SECRETS: set[str] = set()
_LOCK = threading.Lock()
#: shorter values are not masked: no real key is that short, and masking "1" or "EMPTY" (vLLM's placeholder
#: key) in every result file would change the results themselves
MIN_SECRET_LENGTH = 8


def register_secret(value: str | None) -> None:
    """From now on, ``redact`` replaces ``value`` (and its JSON-escaped spelling) wherever it appears."""
    if not value or len(value) < MIN_SECRET_LENGTH:
        return
    with _LOCK:
        _SECRETS.add(value)
        _SECRETS.add(json.dumps(value, ensure_ascii=True)[1:-1])


def register_environment() -> None:
    """Register the environment's API keys: a command that never reads one still never shows it."""
    for name in KEY_VARIABLES:
        register_secret(os.environ.get(name, "").strip() or None)


def forget_secrets() -> None:
    """Drop every registered secret (tests)."""
    with _LOCK:
        _SECRETS.clear()


def redact(text: str) -> str:
    """``text`` with every registered secret replaced by ``MASK`` (longest first: one secret inside another)."""
    if not _SECRETS or not isinstance(text, str):
        return text
    for secret in sorted(_SECRETS, key=len, reverse=True):
        text = text.replace(secret, MASK)
    return text


def redact_tree(value: Any) -> Any:
    """A decoded JSON value with ``redact`` applied to every string in it (keys too)."""
    if not _SECRETS:
        return value
    if isinstance(value, str):
        return redact(value)
    if isinstance(value, (list, tuple)):
        return [redact_tree(v) for v in value]
    if isinstance(value, dict):
        return {redact(k) if isinstance(k, str) else k: redact_tree(v) for k, v in value.items()}
    return value


def clip(text: str, limit: int) -> str:
    """``text`` redacted, on one line, terminal controls escaped, then cut to ``limit`` characters (``...``
    marks a cut)."""
    flat = printable(" ".join(redact(str(text)).split()))
    return flat if len(flat) <= limit else flat[:limit] + "..."


#: characters that drive a terminal rather than print: C0 but newline and tab, DEL, C1, and the bidirectional
#: overrides and isolates (they show text in another order than it is written)
_CONTROLS = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
#: what a progress bar (tqdm) writes and is let through: a leading carriage return (the bar redrawn in place),
#: and a write of nothing but cursor-up sequences (the bars of nested loops)
_CURSOR_UP = re.compile("(?:\x1b\\[A)+")


def printable(text: str) -> str:
    """``text`` with every character that drives a terminal written as its escape (``\\x1b``, ``\\u202e``);
    newlines and tabs kept."""
    return _CONTROLS.sub(lambda m: m.group().encode("unicode_escape").decode("ascii"), text)


def one_line(text: str, lines: int = 10) -> str:
    """The lines of a message joined by ``; `` (an error is one line), the first ``lines`` of them and a count
    of the rest."""
    parts = [line.strip() for line in str(text).splitlines() if line.strip()]
    shown = "; ".join(parts[:lines])
    return shown + (f"; ... and {len(parts) - lines:,} more" if len(parts) > lines else "")


#: notices of one kind shown in a row before the rest are counted, not shown; characters shown of one notice
NOTICE_RUN, NOTICE_CHARS = 20, 2000
#: a notice: lexprobe's own (``lexprobe: skipping ...``) or a log line (``WARNING lexprobe.x: skipping ...``);
#: its kind is that head and the next word
_NOTICE = re.compile(r"(?:lexprobe|DEBUG|INFO|WARNING|ERROR|CRITICAL)(?: [\w.\-]+)?: \S+")
_LINE = re.compile(r"[^\n]*\n|[^\n]+")


class RedactingStream:
    """A text stream whose ``write`` makes text safe to print (the CLI wraps ``sys.stdout`` and ``sys.stderr``
    in it): secrets redacted, terminal controls escaped (``printable``), a run of notices of one kind cut after
    ``NOTICE_RUN`` with a count, and a notice cut after ``NOTICE_CHARS`` characters with a count. Tables and
    other lines that are not notices are never cut."""

    def __init__(self, stream: TextIO):
        self._stream = stream
        self._lock = threading.RLock()
        self._at_line_start = True
        self._kind: str | None = None  # the kind of notice of the current run (None: not a notice)
        self._run = 0  # lines of the current run so far
        self._hidden = 0  # lines of the current run not shown
        self._hiding = False  # the current line is not shown
        self._shown = 0  # characters of the current notice line shown
        self._cut = 0  # characters of the current notice line not shown

    def write(self, text: str) -> int:
        safe = redact(text)
        if _CURSOR_UP.fullmatch(safe):
            shown = safe
        else:
            lead = "\r" if safe.startswith("\r") else ""
            shown = lead + printable(safe[len(lead):])
        with self._lock:
            self._stream.write(self._cut_notices(shown))
        return len(text)

    def _cut_notices(self, text: str) -> str:
        out = []
        for piece in _LINE.findall(text):
            if self._at_line_start:
                match = _NOTICE.match(piece)
                kind = match.group() if match else None
                if kind is None or kind != self._kind:
                    out.append(self._summary())
                    self._kind, self._run = kind, 0
                self._run += 1
                self._hiding = kind is not None and self._run > NOTICE_RUN
                self._hidden += self._hiding
                self._shown = self._cut = 0
            ends = piece.endswith("\n")
            self._at_line_start = ends
            if self._hiding:
                continue
            if self._kind is None:
                out.append(piece)
                continue
            body = piece[:-1] if ends else piece
            room = max(0, NOTICE_CHARS - self._shown)
            out.append(body[:room])
            self._shown += min(len(body), room)
            self._cut += max(0, len(body) - room)
            if ends:
                out.append(f" ... ({self._cut:,} more characters)\n" if self._cut else "\n")
        return "".join(out)

    def _summary(self) -> str:
        """The line that counts the notices of the run that ends (nothing when every one was shown)."""
        if not self._hidden:
            return ""
        hidden, self._hidden = self._hidden, 0
        return (f"lexprobe: ... and {hidden:,} more lines like the {NOTICE_RUN} above ({self._kind} ...), "
                "not shown\n")

    def close_run(self) -> None:
        """End the current run of notices (a command ends: the next one's notices are counted afresh), with
        the count of those not shown."""
        with self._lock:
            summary = self._summary()
            if summary:
                self._stream.write(("" if self._at_line_start else "\n") + summary)
                self._at_line_start = True
                self._stream.flush()
            self._kind, self._run = None, 0

    def writelines(self, lines) -> None:
        for line in lines:
            self.write(line)

    @property
    def wrapped(self) -> TextIO:
        return self._stream

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


def redact_streams() -> None:
    """Route ``sys.stdout`` and ``sys.stderr`` through ``RedactingStream`` (once), until the process ends."""
    for name in ("stdout", "stderr"):
        stream = getattr(sys, name)
        if stream is not None and not isinstance(stream, RedactingStream):
            setattr(sys, name, RedactingStream(stream))


@atexit.register
def _close_runs() -> None:
    """The count of a run of notices cut short, when the program ends on one."""
    for stream in (sys.stdout, sys.stderr):
        if isinstance(stream, RedactingStream):
            try:
                stream.close_run()
            except (OSError, ValueError):  # the stream is closed already
                pass
