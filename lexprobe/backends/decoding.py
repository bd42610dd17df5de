"""An answer's body decoded from its ``Content-Encoding`` chain, with one cap on what every stage produces.

httpx decodes a body as it reads it, each encoding of the chain in turn and each chunk at once: a cap on the
decoded chunks it yields comes too late for ``Content-Encoding: gzip, gzip`` (3.5 KB on the wire became a
6.9 GB chunk inside the inner decoder before the first byte reached the cap). So the client reads the body
raw (``aiter_raw``) and decodes it here: every stage inflates at most ``PIECE`` bytes at a time and hands
them on, and every stage, the last included, stops at the cap, whatever the chain (gzip, deflate, nested, or
none). Only the encodings the client asks for (``ACCEPTED``, its ``Accept-Encoding``) are read; another one
(``br``, ``zstd``, ``compress``: httpx decodes the first two where their packages are installed) is refused.
"""

from __future__ import annotations

import zlib
from typing import Iterator, Sequence

#: what the client asks for (``Accept-Encoding``) and decodes
ACCEPTED = ("gzip", "deflate")
#: the most a stage inflates at a time
PIECE = 64 << 10
#: the most encodings one body may be in (a server applies one; nesting is a bomb's trick)
MAX_CHAIN = 3


class TooLarge(Exception):
    """The body, or one stage of its decoding, passed the cap."""


class UnreadableEncoding(Exception):
    """An encoding not asked for, or a chain too long: the text says which (asking again will not help)."""


class DamagedStream(Exception):
    """A compressed stream that does not inflate (a body cut or garbled on the way: worth asking again)."""


class _Inflater:
    """One ``gzip`` or ``deflate`` stage: at most ``PIECE`` bytes out per step, at most ``limit`` in all."""

    def __init__(self, name: str, limit: int):
        self.name, self.limit, self.produced = name, limit, 0
        gzip = name in ("gzip", "x-gzip")
        self._inflater = zlib.decompressobj(zlib.MAX_WBITS | 16 if gzip else zlib.MAX_WBITS)
        self._raw_deflate_possible = not gzip  # "deflate" is zlib-wrapped by the standard, raw by some servers
        self._started = self._ended = False

    def feed(self, data: bytes) -> Iterator[bytes]:
        draining = False  # the input is all taken but the output was full: more may wait inside the inflater
        while not self._ended and (data or draining):
            out = self._step(data)
            if out:
                yield self._counted(out)
            if self._inflater.eof:  # what follows the end of the stream is ignored (as httpx does)
                self._ended = True
                return
            data = self._inflater.unconsumed_tail
            draining = not data and len(out) == PIECE

    def finish(self) -> Iterator[bytes]:
        if not self._ended:
            rest = self._inflater.flush()
            if rest:
                yield self._counted(rest)

    def _step(self, data: bytes) -> bytes:
        try:
            out = self._inflater.decompress(data, PIECE)
        except zlib.error as err:
            if self._raw_deflate_possible and not self._started:
                self._raw_deflate_possible = False
                self._inflater = zlib.decompressobj(-zlib.MAX_WBITS)
                return self._step(data)
            raise DamagedStream(f"its {self.name} stream is damaged ({err})") from None
        self._started = True
        return out

    def _counted(self, out: bytes) -> bytes:
        self.produced += len(out)
        if self.produced > self.limit:
            raise TooLarge(self.name)
        return out


class BoundedBody:
    """A body read raw and decoded as it arrives (``feed``, then ``finish``), at most ``limit`` bytes out of
    any stage; ``kept()`` is what was decoded so far (an error body is read up to the cap, then cut)."""

    def __init__(self, encodings: Sequence[str], limit: int):
        names = [e.strip().lower() for e in encodings if e.strip() and e.strip().lower() != "identity"]
        other = [n for n in names if n not in (*ACCEPTED, "x-gzip")]
        if other:
            raise UnreadableEncoding(f"it is in Content-Encoding {', '.join(other)}, which lexprobe neither asks "
                                     f"for nor reads (it asks for {' or '.join(ACCEPTED)})")
        if len(names) > MAX_CHAIN:
            raise UnreadableEncoding(f"its Content-Encoding is {len(names)} encodings deep ({', '.join(names)}); "
                                     f"a server applies one")
        self.chain = ", ".join(names) or "identity"
        self.limit = limit
        self.wire = 0  # bytes read off the connection
        self._stages = [_Inflater(n, limit) for n in reversed(names)]  # the last applied is undone first
        self._chunks: list[bytes] = []
        self._size = 0

    def feed(self, raw: bytes) -> None:
        self.wire += len(raw)
        for out in self._through(0, raw):
            self._keep(out)

    def finish(self) -> bytes:
        for i, stage in enumerate(self._stages):
            for piece in stage.finish():
                for out in self._through(i + 1, piece):
                    self._keep(out)
        return self.kept()

    def kept(self) -> bytes:
        return b"".join(self._chunks)[: self.limit]

    def _through(self, i: int, data: bytes) -> Iterator[bytes]:
        if i == len(self._stages):
            yield data
            return
        for piece in self._stages[i].feed(data):
            yield from self._through(i + 1, piece)

    def _keep(self, out: bytes) -> None:
        self._chunks.append(out)
        self._size += len(out)
        if self._size > self.limit:
            raise TooLarge("body")
