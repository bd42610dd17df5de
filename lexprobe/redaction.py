"""Secrets never leave the program: one registry, one ``redact``, applied where text leaves.

A secret (an API key) is registered where it is read; text passes ``redact`` where it leaves: the CLI's
standard streams (``RedactingStream``), result files, resume-log lines and what an endpoint's server sends
back. ``clip`` redacts first, then cuts, so a key straddling the cut leaves no prefix behind. A secret is
also registered JSON-escaped, so ``redact`` finds it in serialised JSON too.
"""

from __future__ import annotations

import json
import os
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
    """``text`` redacted, on one line, then cut to ``limit`` characters (``...`` marks a cut)."""
    flat = " ".join(redact(str(text)).split())
    return flat if len(flat) <= limit else flat[:limit] + "..."


class RedactingStream:
    """A text stream whose ``write`` redacts (the CLI wraps ``sys.stdout`` and ``sys.stderr`` in it)."""

    def __init__(self, stream: TextIO):
        self._stream = stream

    def write(self, text: str) -> int:
        self._stream.write(redact(text))
        return len(text)

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
