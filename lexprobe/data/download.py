"""Streamed, resumable, verified downloads.

A file is written to ``<target>.part`` and renamed into place only once its size and SHA-256 are checked, so a
target is absent or complete. An interrupted transfer keeps the ``.part`` (bytes are written as they arrive) and
the next attempt asks for the rest with an HTTP ``Range`` request, starting over when the server does not honour
it; a mismatch or a full disk deletes it. A short socket timeout and a minimum rate (``MIN_RATE`` bytes/s over
each ``$LEXPROBE_DATA_TIMEOUT`` window) keep a dead or trickling server from hanging a fetch. Errors are one line.
"""

from __future__ import annotations

import errno
import http.client
import math
import os
import socket
import time
from pathlib import Path
from typing import Callable
from urllib.error import HTTPError, URLError
from urllib.parse import urlsplit
from urllib.request import Request, urlopen

from lexprobe.errors import DataError
from lexprobe.locks import take_lock
from lexprobe.provenance import file_sha256 as sha256_of

READ = 64 << 10  # at most this much per read: what has arrived is written at once
MIN_RATE = 1024  # bytes/s: slower than this over a whole timeout window counts as an interruption
ATTEMPTS = 3  # one download, then up to two resumes after an interruption


class NetworkError(DataError):
    """The host could not be reached (no network, DNS failure, refused, timed out)."""


class _Interrupted(Exception):
    pass


#: hosts that failed to connect in this process: later downloads from them fail at once
_unreachable: dict[str, str] = {}


def timeout_s() -> float:
    """``$LEXPROBE_DATA_TIMEOUT`` seconds (default 15) for connecting and for each read."""
    text = os.environ.get("LEXPROBE_DATA_TIMEOUT", "15")
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not (math.isfinite(value) and value > 0):  # 0 would make sockets non-blocking; inf/-1 would never time out
        raise DataError(f"LEXPROBE_DATA_TIMEOUT={text!r} must be a positive, finite number of seconds (default 15)")
    return value


def _disk_full(err: OSError, part: Path) -> DataError:
    part.unlink(missing_ok=True)
    return DataError(f"no space left on the device to download {part.name[:-5]} into {part.parent} "
                     f"({err.strerror or err}); the partial download was removed to free the space, and nothing "
                     "else was lost: free some space (or set LEXPROBE_DATA to another disk) and rerun")


def download(
    url: str,
    target: str | Path,
    sha256: str | None = None,
    size: int | None = None,
    label: str | None = None,
    progress: bool = True,
    check: Callable[[Path], None] | None = None,
) -> str:
    """Fetch ``url`` to ``target``; return the file's SHA-256. ``sha256``/``size``: expected values (None: the
    caller pins the result); ``check(part_path)`` may raise ``DataError`` to reject the content before the rename."""
    target = Path(target)
    target.parent.mkdir(parents=True, exist_ok=True)
    part = target.with_name(target.name + ".part")
    host = urlsplit(url).netloc or url
    if host in _unreachable:
        raise NetworkError(_unreachable[host])
    with take_lock(target.with_name(f".{target.name}.lock")):  # one process downloads a target at a time
        if sha256 and target.is_file() and sha256_of(target) == sha256:
            return sha256  # another process fetched it while this one waited for the lock
        for attempt in range(ATTEMPTS):
            try:
                _stream(url, part, label or target.name, progress)
                break
            except OSError as err:
                if err.errno in (errno.ENOSPC, errno.EDQUOT):
                    raise _disk_full(err, part) from None
                raise
            except _Interrupted as err:
                if attempt == ATTEMPTS - 1:
                    raise DataError(
                        f"download of {url} was interrupted ({err}); rerun the same command to resume it"
                    ) from None
        got_size = part.stat().st_size
        digest = sha256_of(part)
        if (sha256 and digest != sha256) or (size is not None and got_size != size):
            part.unlink(missing_ok=True)
            raise DataError(
                f"checksum mismatch for {target.name} downloaded from {url}: expected sha256 {sha256} "
                f"({size} bytes), got {digest} ({got_size} bytes); the download was deleted. "
                "Check LEXPROBE_DATA_MIRROR or report the changed upstream file"
            )
        if check is not None:
            try:
                check(part)
            except BaseException:
                part.unlink(missing_ok=True)
                raise
        os.replace(part, target)
    return digest


def _open(url: str, offset: int):
    headers = {"User-Agent": "lexprobe-data", "Accept-Encoding": "identity"}
    if offset:
        headers["Range"] = f"bytes={offset}-"
    host = urlsplit(url).netloc or url
    try:
        return urlopen(Request(url, headers=headers), timeout=timeout_s())
    except HTTPError as err:
        if err.code == 416 and offset:
            return None  # our partial file does not fit the resource: start over
        raise DataError(f"cannot download {url}: HTTP {err.code} {err.reason}") from None
    except (URLError, OSError, http.client.HTTPException) as err:
        reason = getattr(err, "reason", err)
        if isinstance(reason, (socket.timeout, TimeoutError)):
            reason = f"no answer within {timeout_s():g} s"
        if url.startswith("file:"):
            raise DataError(f"cannot read {url}: {reason}") from None
        message = (
            f"cannot reach {host} ({reason}); check the network, or set LEXPROBE_DATA_MIRROR to a mirror, "
            "or copy the files over and use `lexprobe data import`"
        )
        _unreachable[host] = message
        raise NetworkError(message) from None


def _stream(url: str, part: Path, label: str, progress: bool) -> None:
    from tqdm.auto import tqdm

    have = part.stat().st_size if part.exists() else 0
    resp = _open(url, have)
    if resp is None:
        part.unlink(missing_ok=True)
        have = 0
        resp = _open(url, 0)
    with resp:
        status = getattr(resp, "status", None) or 200
        content_range = resp.headers.get("Content-Range", "") if hasattr(resp, "headers") else ""
        resumed = have > 0 and status == 206 and content_range.startswith(f"bytes {have}-")
        if not resumed:
            have = 0
        length = resp.headers.get("Content-Length") if hasattr(resp, "headers") else None
        total = have + int(length) if length and length.isdigit() else None
        read = getattr(resp, "read1", None) or resp.read  # read1: what has arrived, without waiting for READ bytes
        window, window_start, window_bytes = timeout_s(), time.monotonic(), 0
        from lexprobe.outputs import open_private  # the .part is appended to: never through a link

        flags = os.O_WRONLY | (os.O_APPEND if resumed else os.O_TRUNC)
        with os.fdopen(open_private(part, flags), "ab" if resumed else "wb") as f, tqdm(
            total=total, initial=have, unit="B", unit_scale=True, unit_divisor=1024,
            desc=label, disable=not progress, leave=False,
        ) as bar:
            while True:
                try:
                    chunk = read(READ)
                except (http.client.IncompleteRead, OSError, http.client.HTTPException) as err:
                    raise _Interrupted(type(err).__name__) from None
                if not chunk:
                    break
                f.write(chunk)
                f.flush()
                bar.update(len(chunk))
                window_bytes += len(chunk)
                elapsed = time.monotonic() - window_start
                if elapsed >= window:
                    if window_bytes < MIN_RATE * elapsed:
                        raise _Interrupted(f"the server sent {window_bytes} bytes in {elapsed:.0f} s, slower than "
                                           f"{MIN_RATE} bytes/s")
                    window_start, window_bytes = time.monotonic(), 0
    if total is not None and part.stat().st_size < total:
        raise _Interrupted(f"connection closed after {part.stat().st_size} of {total} bytes")
