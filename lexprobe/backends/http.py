"""A small JSON-over-HTTP client for OpenAI-compatible servers: timeouts, retries, a secret key.

The standard library only (``urllib``): lexprobe needs a handful of POSTs, not an SDK. Every
request has a timeout; a timeout, a refused connection, 429 and 5xx are retried with
exponential backoff (``Retry-After`` honoured, capped), then reported in one line. The API key
goes into the ``Authorization`` header and nowhere else: every message this module builds
passes ``redact`` (a server that echoes the header back in an error body does not leak it),
and errors are raised ``from None`` so no traceback carries a request object.
"""

from __future__ import annotations

import json
import os
import random
import socket
import time
import urllib.error
import urllib.request
from typing import Any

from lexprobe.errors import ModelError

#: where the API key is read from, in order
KEY_VARIABLES = ("LEXPROBE_API_KEY", "OPENAI_API_KEY")
RETRIED_STATUS = {408, 409, 425, 429, 500, 502, 503, 504}
#: retries of a failed request, and the first wait (doubling each time, up to ``MAX_BACKOFF`` seconds)
RETRIES, BACKOFF, MAX_BACKOFF = 5, 0.5, 20.0


def api_key() -> str | None:
    for name in KEY_VARIABLES:
        value = os.environ.get(name, "").strip()
        if value:
            return value
    return None


class Endpoint:
    """One OpenAI-compatible server: ``base`` is its ``.../v1`` URL."""

    def __init__(self, base: str, key: str | None = None, timeout: float = 120.0, retries: int | None = None,
                 backoff: float | None = None, max_backoff: float | None = None):
        self.base = base.rstrip("/")
        self._key = key
        self.timeout = timeout
        self.retries = RETRIES if retries is None else retries
        self.backoff = BACKOFF if backoff is None else backoff
        self.max_backoff = MAX_BACKOFF if max_backoff is None else max_backoff
        self.retried = 0  # requests retried (recorded in the scorer's stats)

    @property
    def root(self) -> str:
        """The server's root (vLLM serves ``/tokenize`` and ``/version`` there, not under ``/v1``)."""
        return self.base[: -len("/v1")] if self.base.endswith("/v1") else self.base

    def redact(self, text: str) -> str:
        return text.replace(self._key, "***") if self._key else text

    def get(self, path: str, **kw) -> Any:
        return self.request("GET", path, None, **kw)

    def post(self, path: str, body: dict, **kw) -> Any:
        return self.request("POST", path, body, **kw)

    def request(self, method: str, path: str, body: dict | None, retries: int | None = None,
                timeout: float | None = None, missing_ok: bool = False) -> Any:
        """The decoded JSON answer; None for a 404 when ``missing_ok``; a one-line ``ModelError``
        after the retries (``retries`` here overrides the endpoint's)."""
        url = path if path.startswith("http") else f"{self.base}{path}"
        tries = 1 + (self.retries if retries is None else retries)
        last = ""
        for attempt in range(tries):
            wait = None
            try:
                return self._once(method, url, body, timeout or self.timeout)
            except urllib.error.HTTPError as err:
                detail = _detail(err)
                if err.code == 404 and missing_ok:
                    return None
                if err.code not in RETRIED_STATUS:
                    raise ModelError(self.redact(f"{method} {url}: HTTP {err.code} {detail}")) from None
                last = f"HTTP {err.code} {detail}".strip()
                wait = _retry_after(err)
            except (urllib.error.URLError, socket.timeout, TimeoutError, ConnectionError) as err:
                reason = getattr(err, "reason", err)
                last = f"{type(reason).__name__}: {reason}" if str(reason) else type(reason).__name__
            if attempt + 1 < tries:
                self.retried += 1
                delay = wait if wait is not None else self.backoff * (2 ** attempt) * (1 + random.random() / 4)
                time.sleep(min(delay, self.max_backoff))
        raise ModelError(self.redact(
            f"{method} {url} failed {tries} time(s) (last: {last[:200]}); the server is down, overloaded or "
            "unreachable: check it and rerun (units already scored are kept)"))

    def _once(self, method: str, url: str, body: dict | None, timeout: float) -> Any:
        data = None if body is None else json.dumps(body).encode()
        headers = {"Content-Type": "application/json", "Accept": "application/json"}
        if self._key:
            headers["Authorization"] = f"Bearer {self._key}"
        req = urllib.request.Request(url, data=data, method=method, headers=headers)
        with urllib.request.urlopen(req, timeout=timeout) as resp:  # noqa: S310 - an http(s) URL the user gave
            raw = resp.read()
        try:
            return json.loads(raw)
        except ValueError:
            raise ModelError(self.redact(f"{method} {url}: the server's answer is not JSON "
                                         f"({raw[:80]!r}); is this an OpenAI-compatible /v1 URL?")) from None


def _detail(err: urllib.error.HTTPError) -> str:
    """The server's message of an error answer, on one line and short."""
    try:
        raw = err.read().decode("utf-8", "replace")
    except Exception:  # noqa: BLE001 - the body is a courtesy
        raw = ""
    try:
        parsed = json.loads(raw)
        message = parsed.get("error", parsed) if isinstance(parsed, dict) else parsed
        if isinstance(message, dict):
            message = message.get("message", message)
        raw = str(message)
    except ValueError:
        pass
    text = " ".join(str(raw).split())
    return (text[:300] + "...") if len(text) > 300 else (text or str(err.reason))


def _retry_after(err: urllib.error.HTTPError) -> float | None:
    value = err.headers.get("Retry-After") if err.headers else None
    try:
        return max(0.0, float(value)) if value is not None else None
    except ValueError:
        return None
