"""The HTTP side of an OpenAI-compatible server: httpx for the wire, tenacity for the retries.

Not the ``openai`` SDK: it follows redirects (the key would go with them), does not validate its
answers, and does not type vLLM's extensions (token-id prompts, echo with prompt log-probabilities,
``/tokenize``, ``/version``). A request here has one deadline for the whole exchange (a server trickling
bytes cannot hold it), follows no redirect (the ``Authorization`` header never goes to another host), is
retried on 408/409/425/429/5xx and transport errors (backoff, ``Retry-After`` capped), and an answer that
fails its check (``BadAnswer``) is asked once more. The URL and the key are checked before any request; the
key is registered with ``redaction`` and every server text is redacted as it arrives. ``post_all`` runs
``concurrency`` requests at a time on an event loop in its own thread (so a notebook can call it); the first
failure cancels the others and waits for them to end, so nothing is left pending behind the error line.

Where requests go is decided once (``proxies.proxy_for``: the proxy variables read here, not by httpx; a key
never sent in clear through a proxy) and every error through a proxy names it. A body is read raw and decoded
by ``decoding.BoundedBody`` (one cap on every stage of any ``Content-Encoding`` chain). A TLS failure is not
"the server is down": a certificate not trusted names ``SSL_CERT_FILE``, a handshake with a plain-HTTP
server names ``http://``; neither is retried.
"""

from __future__ import annotations

import asyncio
import email.utils
import functools
import json
import os
import random
import ssl
import threading
import time
import urllib.parse
import weakref
from typing import Any, Awaitable, Callable, Coroutine, Sequence, TypeVar

import httpx
from tenacity import AsyncRetrying, RetryCallState

from lexprobe.backends.decoding import ACCEPTED, BoundedBody, DamagedStream, TooLarge, UnreadableEncoding
from lexprobe.backends.proxies import Proxy, check_host, proxy_for
from lexprobe.errors import ModelError
from lexprobe.redaction import KEY_VARIABLES, clip, redact, redact_tree, register_secret

T = TypeVar("T")

RETRIED_STATUS = frozenset({408, 409, 425, 429, 500, 502, 503, 504})
#: retries of a failed request, and the first wait (doubling each time, up to ``MAX_BACKOFF`` seconds)
RETRIES, BACKOFF, MAX_BACKOFF = 5, 0.5, 20.0
#: the largest answer read (a batch of echoed prompts is a few MB); an error body is read to ``ERROR_BYTES``
MAX_ANSWER_BYTES, ERROR_BYTES = 64 << 20, 64 << 10
#: how much of a server's error text a message shows (after redaction)
DETAIL_CHARS = 300
#: seconds a Ctrl-C waits for the requests in flight to end (cancelled) before it is raised
CANCEL_WAIT = 5.0
#: a decoded body this many times larger than the bytes on the wire is no JSON answer but a compression bomb
BOMB_RATIO = 200


class BadAnswer(Exception):
    """A server answer that is not what was asked for; asked once more, then one ``ModelError``."""


class _Transient(Exception):
    """A failure worth retrying: ``text`` for the last line, ``retry_after`` seconds when the server said."""

    def __init__(self, text: str, retry_after: float | None = None):
        super().__init__(text)
        self.text, self.retry_after = text, retry_after


class _Final(Exception):
    """A failure not worth retrying (HTTP 401, 404, a redirect, ...): the whole message."""


def api_key() -> str | None:
    """The API key from the environment, registered for redaction and checked (one line that does not print
    it) before it goes into any header."""
    for name in KEY_VARIABLES:
        value = os.environ.get(name, "").strip()
        if not value:
            continue
        register_secret(value)
        bad = next((c for c in value if not (0x21 <= ord(c) <= 0x7E)), None)
        if bad is not None:
            what = "whitespace" if bad.isspace() else "a control character" if ord(bad) < 0x20 or ord(bad) == 0x7F \
                else "a character outside printable ASCII"
            raise ModelError(f"${name} holds {what} (an API key is printable ASCII without spaces; the key is not "
                             f"shown here): set ${name} to the key alone")
        return value
    return None


def check_url(reference: str) -> str:
    """The ``.../v1`` base URL without a trailing slash, or one line (never printing a password or query)."""
    text = str(reference)
    try:
        parts = urllib.parse.urlsplit(text)
    except ValueError as err:  # an IPv6 address not closed
        raise ModelError(f"--model is not a valid URL ({err}); pass http://HOST:PORT/v1") from None
    if "@" in parts.netloc:
        userinfo, _, hostport = parts.netloc.rpartition("@")
        register_secret(userinfo.partition(":")[2] or None)
        raise ModelError(f"--model {parts.scheme}://{hostport}{parts.path}: a user name and password in the URL "
                         "(user:pass@) are not sent; lexprobe sends a key as a bearer token only: put the key in "
                         "$LEXPROBE_API_KEY and drop user:pass@ from --model")
    bad = lambda part: any(c.isspace() or not c.isprintable() for c in part)  # noqa: E731
    if bad(text):
        head = text.split("?")[0].split("#")[0]  # a query may hold a key: never shown
        raise ModelError(f"--model {head!r}" + ("" if bad(head) else " (in its ?query or #fragment)")
                         + ": a URL holds no whitespace or control character; pass the endpoint URL alone "
                           "(http://HOST:PORT/v1)")
    shown = f"{parts.scheme}://{parts.netloc}{parts.path}"
    if parts.scheme.lower() not in ("http", "https") or not parts.hostname:
        raise ModelError(f"--model {shown!r} is not an http(s) URL with a host; pass http://HOST:PORT/v1")
    try:
        parts.port  # noqa: B018 - a port that is not a number raises here
    except ValueError:
        raise ModelError(f"--model {shown!r}: the port is not a number from 0 to 65535; fix the URL") from None
    if parts.query or parts.fragment:
        raise ModelError(f"--model {shown}: a ?query or #fragment is not part of an endpoint's base URL (it is "
                         "not shown here: it may hold a key); pass http://HOST:PORT/v1 alone")
    check_host(shown, f"--model {shown!r}")
    return shown.rstrip("/")


def origin(url: str | httpx.URL) -> str:
    u = httpx.URL(str(url))
    default = {"http": 80, "https": 443}.get(u.scheme)
    return f"{u.scheme}://{u.host}" + (f":{u.port}" if u.port and u.port != default else "")


class Endpoint:
    """One OpenAI-compatible server: ``base`` is its ``.../v1`` URL (checked), ``root`` the server's root
    (vLLM serves ``/tokenize`` and ``/version`` there, not under ``/v1``)."""

    def __init__(self, reference: str, key: str | None = None, timeout: float = 120.0, concurrency: int = 8,
                 retries: int | None = None, backoff: float | None = None, max_backoff: float | None = None):
        self.base = check_url(reference)
        self.origin = origin(self.base)
        register_secret(key)
        self._key = key
        #: the proxy every request goes through (checked; refused where the key would pass it in clear), or None
        self.proxy: Proxy | None = proxy_for(self.base, key=bool(key))
        self.timeout = float(timeout)
        self.concurrency = int(concurrency)
        self.retries = RETRIES if retries is None else retries
        self.backoff = BACKOFF if backoff is None else backoff
        self.max_backoff = MAX_BACKOFF if max_backoff is None else max_backoff
        self.retried = 0  # requests retried (recorded in the scorer's stats)
        self._loop: asyncio.AbstractEventLoop | None = None
        self._client: httpx.AsyncClient | None = None
        self._start = threading.Lock()

    @property
    def root(self) -> str:
        return self.base[: -len("/v1")] if self.base.endswith("/v1") else self.base

    def url(self, path: str) -> str:
        """``path`` under the base (``/models``) or a full URL on the same origin (``root + /version``)."""
        return path if path.startswith(("http://", "https://")) else f"{self.base}{path}"

    # ------------------------------------------------------------------ the synchronous face
    def get(self, path: str, check: Callable[[Any], T] | None = None, **kw: Any) -> T | Any:
        return self._run(self._call("GET", self.url(path), None, check, **kw))

    def post(self, path: str, body: dict, check: Callable[[Any], T] | None = None, **kw: Any) -> T | Any:
        return self._run(self._call("POST", self.url(path), body, check, **kw))

    def post_all(self, path: str, bodies: Sequence[dict], checks: Sequence[Callable[[Any], T]]) -> list[T]:
        """Every body posted to ``path``, ``concurrency`` at a time, each answer through its check; in order."""
        url = self.url(path)
        return self._run(self._gather([functools.partial(self._call, "POST", url, b, c) for b, c in zip(bodies, checks)]))

    def close(self) -> None:
        """Close the connections and stop the event loop's thread (also when the endpoint is collected)."""
        finalizer = getattr(self, "_finalizer", None)
        if finalizer is not None:
            finalizer()
        self._loop = self._client = None

    # ------------------------------------------------------------------ the event loop (a thread of its own)
    def _run(self, coro: Coroutine[Any, Any, T]) -> T:
        try:
            loop = self._ensure_loop()
        except BaseException:  # no client (SSL_CERT_FILE unreadable, ...): the request is never made
            coro.close()
            raise
        ended = threading.Event()

        async def tracked() -> T:
            try:
                return await coro
            finally:
                ended.set()

        future = asyncio.run_coroutine_threadsafe(tracked(), loop)
        try:
            return future.result()
        except BaseException:  # Ctrl-C while waiting: stop the requests in flight too, and let them end
            future.cancel()
            ended.wait(CANCEL_WAIT)
            raise

    def _ensure_loop(self) -> asyncio.AbstractEventLoop:
        with self._start:
            if self._loop is None or self._loop.is_closed():
                loop = asyncio.new_event_loop()
                threading.Thread(target=_serve_loop, args=(loop,), name=f"lexprobe-endpoint {self.origin}",
                                 daemon=True).start()
                headers = {"Accept": "application/json", "Accept-Encoding": ", ".join(ACCEPTED)}
                if self._key:
                    headers["Authorization"] = f"Bearer {self._key}"
                try:
                    self._client = asyncio.run_coroutine_threadsafe(self._make_client(headers), loop).result()
                except BaseException:
                    loop.call_soon_threadsafe(loop.stop)
                    raise
                self._loop = loop
                self._finalizer = weakref.finalize(self, _shutdown, loop, self._client)
            return self._loop

    async def _make_client(self, headers: dict[str, str]) -> httpx.AsyncClient:
        """The client, with the transport given explicitly: the proxy is ``self.proxy`` (httpx reads no proxy
        variable); ``SSL_CERT_FILE``/``SSL_CERT_DIR`` are still honoured (``trust_env`` of the transport)."""
        limits = httpx.Limits(max_connections=self.concurrency, max_keepalive_connections=self.concurrency)
        try:
            transport = httpx.AsyncHTTPTransport(proxy=self.proxy.url if self.proxy else None, limits=limits,
                                                 trust_env=True)
        except OSError as err:  # ssl.SSLError is one: SSL_CERT_FILE or SSL_CERT_DIR is not what it should be
            raise ModelError(_certificate_variables_problem(err)) from None
        return httpx.AsyncClient(headers=headers, follow_redirects=False, timeout=httpx.Timeout(self.timeout),
                                 transport=transport, trust_env=False)

    async def _gather(self, calls: list[Callable[[], Awaitable[T]]]) -> list[T]:
        """Each call made and awaited, ``concurrency`` at a time; the first failure cancels the rest, and they
        are awaited to their end before it is raised (a task left pending is dumped by asyncio at exit)."""
        gate = asyncio.Semaphore(self.concurrency)

        async def gated(call: Callable[[], Awaitable[T]]) -> T:
            async with gate:
                return await call()

        tasks = [asyncio.ensure_future(gated(c)) for c in calls]
        try:
            return list(await asyncio.gather(*tasks))
        finally:  # the first failure (or a cancel) leaves no request running, and no task pending
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)

    # ------------------------------------------------------------------ one request, retried
    async def _call(self, method: str, url: str, body: dict | None, check: Callable[[Any], T] | None = None,
                    retries: int | None = None, timeout: float | None = None, missing_ok: bool = False) -> T | Any:
        """The checked answer; None for a 404 (or 405) when ``missing_ok``; one ``ModelError`` after the retries."""
        tries = 1 + (self.retries if retries is None else retries)
        deadline = self.timeout if timeout is None else timeout
        bad_answers = 0

        def retry(state: RetryCallState) -> bool:
            nonlocal bad_answers
            error = state.outcome.exception() if state.outcome else None
            if isinstance(error, BadAnswer):
                bad_answers += 1
                return bad_answers < 2
            return isinstance(error, _Transient)

        def stop(state: RetryCallState) -> bool:
            error = state.outcome.exception() if state.outcome else None
            return not isinstance(error, BadAnswer) and state.attempt_number - bad_answers >= tries

        def count(state: RetryCallState) -> None:
            self.retried += 1

        via = f" (through {self.proxy})" if self.proxy else ""
        try:
            async for attempt in AsyncRetrying(retry=retry, stop=stop, wait=self._wait, before_sleep=count,
                                               reraise=True):
                with attempt:
                    return await self._once(method, url, body, check, deadline, missing_ok)
        except _Transient as err:
            who = (f"{self.proxy} or the server behind it is down, overloaded or unreachable: check both (or bypass "
                   f"the proxy: NO_PROXY={httpx.URL(url).host})" if self.proxy else
                   "the server is down, overloaded or unreachable: check it")
            raise ModelError(f"{method} {url} failed {tries} time(s) (last: {clip(err.text, 200)}); {who} and rerun "
                             "(units already scored are kept)") from None
        except BadAnswer as err:
            raise ModelError(f"{method} {url}{via}: {clip(str(err), 2 * DETAIL_CHARS)} (asked twice; nothing from "
                             "this answer was used or recorded)") from None
        except _Final as err:
            raise ModelError(clip(f"{method} {url}{via}: {err}", 4 * DETAIL_CHARS)) from None
        raise AssertionError("unreachable")  # pragma: no cover

    def _wait(self, state: RetryCallState) -> float:
        error = state.outcome.exception() if state.outcome else None
        if isinstance(error, _Transient) and error.retry_after is not None:
            return min(error.retry_after, self.max_backoff)
        delay = self.backoff * (2 ** (state.attempt_number - 1)) * (1 + random.random() / 4)
        return min(delay, self.max_backoff)

    async def _once(self, method: str, url: str, body: dict | None, check: Callable[[Any], T] | None,
                    deadline: float, missing_ok: bool) -> T | Any:
        try:
            status, headers, raw = await asyncio.wait_for(self._exchange(method, url, body), deadline)
        except asyncio.TimeoutError:
            raise _Transient(f"no whole answer within {deadline:g} s (--request-timeout)") from None
        except httpx.HTTPError as err:  # refused, reset, a body cut mid-way, a bad status line, TLS, a proxy, ...
            raise _transport_failure(err) from None
        except httpx.InvalidURL as err:
            raise _Final(f"the URL is not valid ({err}); fix --model") from None
        except DamagedStream as err:
            raise _Transient(f"the answer is unreadable: {err}") from None
        except UnreadableEncoding as err:
            raise _Final(f"the answer is unreadable: {err}; configure the server (or what is in front of it) to "
                         "send gzip, deflate or no compression") from None
        if status == 407 and self.proxy is not None:
            raise _Final(f"HTTP 407: {self.proxy} asks for credentials: put user:pass@ in the proxy URL of "
                         f"{self.proxy.source}, or bypass the proxy (NO_PROXY={httpx.URL(url).host})")
        if 300 <= status < 400:
            try:
                where = origin(httpx.URL(url).join(headers["location"]))
            except (KeyError, httpx.InvalidURL):
                where = "elsewhere"
            same = "" if where == "elsewhere" or where == self.origin else ", another origin"
            raise _Final(f"HTTP {status} redirect to {where}{same}; lexprobe does not follow redirects (the API key "
                         "would go with them): pass the URL the server answers at as --model")
        if status in (404, 405) and missing_ok:
            return None
        if status >= 400:
            detail = _detail(raw) or headers.get("reason", "")
            if status in RETRIED_STATUS:
                raise _Transient(f"HTTP {status} {detail}".strip(), _retry_after(headers.get("retry-after")))
            raise _Final(f"HTTP {status} {clip(detail, DETAIL_CHARS)}".strip())
        if status != 200:
            raise BadAnswer(f"HTTP {status} where 200 was expected")
        try:
            answer = redact_tree(json.loads(raw))
        except (ValueError, RecursionError):
            raise BadAnswer(f"the server's answer is not JSON ({clip(raw[:200].decode('utf-8', 'replace'), 80)!r}); "
                            "is this an OpenAI-compatible /v1 URL?") from None
        return check(answer) if check is not None else answer

    async def _exchange(self, method: str, url: str, body: dict | None) -> tuple[int, httpx.Headers, bytes]:
        """Status, headers and decoded body (at most ``MAX_ANSWER_BYTES``; of an error ``ERROR_BYTES``, cut
        there), read raw and decoded by ``BoundedBody`` (one cap on every stage of the encoding chain)."""
        assert self._client is not None
        async with self._client.stream(method, url, json=body) as response:
            ok = response.status_code < 300
            decoded = BoundedBody(response.headers.get_list("content-encoding", split_commas=True),
                                  MAX_ANSWER_BYTES if ok else ERROR_BYTES)
            try:
                async for chunk in response.aiter_raw():
                    decoded.feed(chunk)
                raw = decoded.finish()
            except TooLarge:
                if ok:
                    raise _Final(_too_large(body, decoded)) from None
                raw = decoded.kept()  # an error's text: its beginning is enough
            return response.status_code, response.headers, raw


def _too_large(body: dict | None, decoded: BoundedBody) -> str:
    """What an answer past the cap means, and the fix: fewer prompts per request where a request holds several
    and the answer is not a compression bomb; otherwise no answer to it is that large."""
    prompts = body.get("prompt") if isinstance(body, dict) else None
    several = isinstance(prompts, list) and len(prompts) > 1 and all(isinstance(p, (list, str)) for p in prompts)
    bomb = decoded.chain != "identity" and decoded.wire * BOMB_RATIO < decoded.limit
    what = (f"the answer decodes to more than {decoded.limit >> 20} MiB ({decoded.wire:,} bytes on the wire, "
            f"Content-Encoding: {decoded.chain})")
    if several and not bomb:
        return f"{what}; lower --batch-size (fewer prompts per request)"
    return (f"{what}: no answer to this request is that large" + (" (a compression bomb)" if bomb else "")
            + "; check what answers at --model (nothing from it was used)")


def _transport_failure(err: httpx.HTTPError) -> Exception:
    """A transport error as a retried ``_Transient``, or, where asking again cannot help, a ``_Final`` naming
    the fix: a TLS certificate not trusted (``SSL_CERT_FILE``), a TLS handshake with a server that does not
    speak TLS (``http://``)."""
    text = f"{type(err).__name__}: {err}" if str(err) else type(err).__name__
    cause: BaseException | None = err
    while cause is not None and not isinstance(cause, ssl.SSLError):
        cause = cause.__cause__ or cause.__context__
    if isinstance(cause, ssl.SSLCertVerificationError):
        reason = cause.verify_message or cause.reason or str(cause)
        if "mismatch" in str(reason):
            return _Final(f"the server's TLS certificate is not for this host ({reason}): use the host name the "
                          "certificate names in --model")
        given = [f"{v}={os.environ[v]}" for v in ("SSL_CERT_FILE", "SSL_CERT_DIR") if os.environ.get(v)]
        where = (f" ({' and '.join(given)} does not hold the certificate that signed it)" if given else "")
        return _Final(f"the server's TLS certificate is not trusted ({reason}){where}: if it is self-signed or "
                      "signed by a private CA, point SSL_CERT_FILE at that certificate or CA (a PEM file) and rerun")
    if isinstance(cause, ssl.SSLError) and not isinstance(cause, _CUT_CONNECTION):
        return _Final(f"the TLS handshake failed ({cause.reason or cause}): if the server speaks plain HTTP, use "
                      "http:// in --model")
    return _Transient(text)


#: TLS errors of a connection cut or closed on the way (worth asking again), not of the handshake itself
_CUT_CONNECTION = (ssl.SSLEOFError, ssl.SSLZeroReturnError, ssl.SSLSyscallError, ssl.SSLWantReadError,
                   ssl.SSLWantWriteError)


def _certificate_variables_problem(err: OSError) -> str:
    given = [f"${v}={os.environ[v]}" for v in ("SSL_CERT_FILE", "SSL_CERT_DIR") if os.environ.get(v)]
    what = " or ".join(given) or "the system's CA certificates"
    return (f"{what} cannot be read as CA certificates ({type(err).__name__}: {err}): point SSL_CERT_FILE at a PEM "
            "file of the CA that signed the server's certificate, or unset it")


def _serve_loop(loop: asyncio.AbstractEventLoop) -> None:
    loop.run_forever()
    loop.close()


def _shutdown(loop: asyncio.AbstractEventLoop, client: httpx.AsyncClient) -> None:
    """Close ``client`` on ``loop``, then stop the loop (its thread closes it and ends)."""
    async def close() -> None:
        try:
            await client.aclose()
        finally:
            loop.stop()

    try:
        asyncio.run_coroutine_threadsafe(close(), loop)
    except RuntimeError:  # the loop is closed already
        pass


def _detail(raw: bytes) -> str:
    """The server's message of an error answer, on one line, redacted."""
    text = raw.decode("utf-8", "replace")
    try:
        parsed = json.loads(text)
    except (ValueError, RecursionError):
        parsed = text
    message = parsed.get("error", parsed) if isinstance(parsed, dict) else parsed
    if isinstance(message, dict):
        message = message.get("message", message)
    return " ".join(redact(str(message)).split())


def _retry_after(value: str | None) -> float | None:
    """Seconds of a ``Retry-After`` header (a number or an HTTP date), or None."""
    if value is None:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return None
    return max(0.0, when.timestamp() - time.time()) if when is not None else None
