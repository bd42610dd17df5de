"""The participants' web page and its small JSON API (standard library only).

Routes: ``GET /`` the page; ``GET /api/items`` the items without answers;
``GET /api/progress?participant=P`` what P has answered; ``POST /api/answer``
``{"participant", "item", "answer"}``. Every request is validated here: unknown
items, partial or non-one-to-one alignments, malformed, oversized or too deeply
nested bodies get a 4xx with a message the page shows. No request value reaches a
file path (the page is one fixed package file) or an SQL string (the store binds
parameters).

Other web pages must not forge or read answers through a participant's browser:
``Host`` must name this server (a DNS-rebinding page sends its own name), ``Origin``
(when a browser sends it) must be the page's own, ``/api/`` calls must carry the
token that the page got inside its HTML (``X-Lexprobe-Token``; other sites cannot
read the page), and answers must be ``application/json`` (a cross-site form cannot
send that without a CORS preflight, which this server never grants). An answer is
acknowledged only after the store committed it (503 otherwise).

Slow or many callers cannot exhaust the server: a request (one per connection, HTTP/1.0)
has ``READ_TIMEOUT_S`` *in total* to arrive, however it is trickled (a per-``recv``
timeout would let one byte every few seconds hold a thread for ever; a late body gets
408), and at most ``MAX_CONNECTIONS`` connections are served at once (a semaphore around
the per-connection threads); one more gets a 503 from the accepting thread at once.
Numbers in headers are ASCII digits only (``"²".isdigit()`` is true, ``int("²")`` fails),
and any body that ``json`` cannot read (an integer of more than 4300 digits too) is a 400.
An IPv6 ``--host`` (``::1``) gets an IPv6 socket.
"""

from __future__ import annotations

import errno
import hmac
import io
import ipaddress
import json
import logging
import re
import secrets
import socket
import sys
import threading
import time
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from importlib import resources
from urllib.parse import parse_qs, urlsplit

from lexprobe.core.human_items import AnswerError, check_answer, public_items
from lexprobe.errors import DataError
from lexprobe.human.store import AnswerStore, StoreError, valid_participant

MAX_BODY = 64 * 1024
READ_TIMEOUT_S = 10.0  # the whole request (line, headers, body) must arrive within this
MAX_CONNECTIONS = 32  # connections served at once; more get 503 until one ends
REFUSED_LINGER_S = 1.0  # a refused connection is closed this long after its 503 (a client reading it gets no RST)
_NUMBER = re.compile(r"[0-9]+")  # ASCII only: str.isdigit() also takes '²', which int() refuses
_PORT = re.compile(r"[0-9]{1,5}")
TOKEN_HEADER = "X-Lexprobe-Token"
TOKEN_SLOT = b'<meta name="lexprobe-token" content="">'
log = logging.getLogger(__name__)


class RequestError(Exception):
    def __init__(self, status: HTTPStatus, message: str):
        super().__init__(message)
        self.status = status


class HumanApp:
    """The state one server holds: an item set, the store its answers go to, the page's token."""

    def __init__(self, item_set: dict, store: AnswerStore):
        self.item_set = item_set
        self.store = store
        self.items = {it["id"]: it for it in item_set["items"]}
        self.public = {"set_id": item_set["set_id"], "benchmark": item_set["benchmark"],
                       "items": public_items(item_set)}
        self.token = secrets.token_urlsafe(24)  # per server run: a restarted server's page must be reloaded
        page = resources.files("lexprobe.human").joinpath("page.html").read_bytes()
        if TOKEN_SLOT not in page:  # pragma: no cover - the package file always has it
            raise RuntimeError("page.html lacks its token slot")
        self.page = page.replace(TOKEN_SLOT, TOKEN_SLOT.replace(b'content=""', f'content="{self.token}"'.encode()))
        store.add_item_set(item_set)

    @staticmethod
    def participant(value) -> str:
        if not valid_participant(value):
            raise RequestError(HTTPStatus.BAD_REQUEST,
                               "participant code must be 1-40 letters, digits, '-' or '_'")
        return value

    def progress(self, participant: str) -> dict:
        answered = self.store.answers(self.item_set["set_id"], participant).get(participant, {})
        return {"participant": participant, "answered": answered, "total": len(self.items)}

    def answer(self, body: dict) -> dict:
        if not isinstance(body, dict):
            raise RequestError(HTTPStatus.BAD_REQUEST, "body must be a JSON object")
        who = self.participant(body.get("participant"))
        item = self.items.get(body.get("item")) if isinstance(body.get("item"), str) else None
        if item is None:
            raise RequestError(HTTPStatus.NOT_FOUND, "unknown item")
        try:
            answer = check_answer(item, body.get("answer"))
        except AnswerError as err:
            raise RequestError(HTTPStatus.BAD_REQUEST, str(err)) from None
        self.store.save_answer(self.item_set["set_id"], who, item["id"], answer)  # returns once committed
        return self.progress(who)


# ------------------------------------------------------------------ who may call


def _split_host(value: str) -> tuple[str, int | None]:
    """``"[::1]:8765"`` -> ("::1", 8765); ``"name"`` -> ("name", None); garbage -> ("", None)."""
    value = value.strip().lower()
    if value.startswith("["):
        name, _, rest = value[1:].partition("]")
        port = rest[1:] if rest.startswith(":") else ""
    else:
        name, _, port = value.partition(":") if value.count(":") == 1 else (value, "", "")
    if port and not _PORT.fullmatch(port):
        return "", None
    return name, int(port) if port else None


def _is_ip(name: str) -> bool:
    try:
        ipaddress.ip_address(name)
        return True
    except ValueError:
        return False


def _wildcard(host: str) -> bool:
    return host in ("", "0.0.0.0", "::")


class Gate:
    """Which ``Host`` and ``Origin`` values are this server's own."""

    def __init__(self, host: str, port: int):
        self.port = port
        self.wildcard = _wildcard(host)
        names = {host.lower(), "localhost", "127.0.0.1", "::1"}
        try:
            names |= {socket.gethostname().lower(), socket.getfqdn().lower()}
        except OSError:  # pragma: no cover
            pass
        self.names = names

    def host_ok(self, header: str | None) -> bool:
        if not header:
            return False
        name, port = _split_host(header)
        if (port or 80) != self.port or not name:
            return False
        # an IP literal cannot be a rebinding attacker's name; a wildcard server answers on all of them
        return name in self.names or (self.wildcard and _is_ip(name))

    @staticmethod
    def origin_ok(origin: str | None, host: str) -> bool:
        return origin is None or origin.strip().lower() == f"http://{host.strip().lower()}"


class _DeadlineReader(io.RawIOBase):
    """A connection's reads that all end by one deadline: before each ``recv`` the socket's
    timeout is set to the time left, so a trickled request cannot outlive ``budget_s``."""

    def __init__(self, sock: socket.socket, budget_s: float):
        super().__init__()
        self.sock, self.budget_s = sock, budget_s
        self.deadline = time.monotonic() + budget_s

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:  # type: ignore[override]
        left = self.deadline - time.monotonic()
        if left <= 0:
            raise TimeoutError(f"the request did not arrive within {self.budget_s:g} s")
        self.sock.settimeout(left)
        try:
            return self.sock.recv_into(buffer)
        finally:
            self.sock.settimeout(self.budget_s)  # writes (the reply) get their own bound


def _handler(app: HumanApp, gate: Gate):
    class Handler(BaseHTTPRequestHandler):
        server_version = "lexprobe-human"
        timeout = READ_TIMEOUT_S  # StreamRequestHandler: the socket's timeout (bounds writes; reads: setup)

        def setup(self):
            super().setup()
            self.rfile.close()  # reads go through the deadline of the whole request instead
            self.rfile = io.BufferedReader(_DeadlineReader(self.connection, READ_TIMEOUT_S))

        def log_message(self, fmt, *args):  # quiet by default; -v shows requests
            log.info("%s %s", self.address_string(), fmt % args)

        def _send(self, status: HTTPStatus, body: bytes, ctype: str) -> None:
            self.send_response(status)
            self.send_header("Content-Type", ctype)
            self.send_header("Content-Length", str(len(body)))
            self.send_header("Cache-Control", "no-store")
            self.send_header("X-Content-Type-Options", "nosniff")
            self.send_header("X-Frame-Options", "DENY")
            self.send_header("Referrer-Policy", "no-referrer")
            self.end_headers()
            self.wfile.write(body)

        def _json(self, status: HTTPStatus, obj) -> None:
            self._send(status, json.dumps(obj, ensure_ascii=False).encode("utf-8"), "application/json; charset=utf-8")

        def _error(self, err: RequestError) -> None:
            self._json(err.status, {"error": str(err)})

        def _check_caller(self, api: bool) -> None:
            host = self.headers.get("Host")
            if not gate.host_ok(host):
                raise RequestError(HTTPStatus.FORBIDDEN, "this server answers only requests addressed to it "
                                                         "(Host header); open the address `human serve` printed")
            if not gate.origin_ok(self.headers.get("Origin"), host or ""):  # host_ok refused a missing Host
                raise RequestError(HTTPStatus.FORBIDDEN, "requests from other web pages are refused (Origin)")
            if api:
                site = self.headers.get("Sec-Fetch-Site")
                if site not in (None, "same-origin", "none"):
                    raise RequestError(HTTPStatus.FORBIDDEN, "requests from other web pages are refused")
                token = self.headers.get(TOKEN_HEADER) or ""
                if not hmac.compare_digest(token.encode(), app.token.encode()):
                    raise RequestError(HTTPStatus.FORBIDDEN, "the page's session token is missing or old (the "
                                                             "server was restarted?): reload the page")

        def do_GET(self):  # noqa: N802 - http.server API
            url = urlsplit(self.path)
            try:
                self._check_caller(api=url.path not in ("/", "/index.html"))
                if url.path in ("/", "/index.html"):
                    self._send(HTTPStatus.OK, app.page, "text/html; charset=utf-8")
                elif url.path == "/api/items":
                    self._json(HTTPStatus.OK, app.public)
                elif url.path == "/api/progress":
                    who = parse_qs(url.query).get("participant", [None])[0]
                    self._json(HTTPStatus.OK, app.progress(app.participant(who)))
                else:
                    raise RequestError(HTTPStatus.NOT_FOUND, "not found")
            except RequestError as err:
                self._error(err)
            except DataError as err:  # the store cannot be read
                self._error(RequestError(HTTPStatus.SERVICE_UNAVAILABLE, str(err)))

        def do_POST(self):  # noqa: N802
            try:
                if urlsplit(self.path).path != "/api/answer":
                    raise RequestError(HTTPStatus.NOT_FOUND, "not found")
                self._check_caller(api=True)
                ctype = (self.headers.get("Content-Type") or "").split(";")[0].strip().lower()
                if ctype != "application/json":
                    raise RequestError(HTTPStatus.UNSUPPORTED_MEDIA_TYPE, "answers must be sent as application/json")
                length = (self.headers.get("Content-Length") or "").strip()
                if not length:
                    raise RequestError(HTTPStatus.LENGTH_REQUIRED, "Content-Length required")
                if not _NUMBER.fullmatch(length):
                    raise RequestError(HTTPStatus.BAD_REQUEST, "Content-Length must be a number of bytes (digits 0-9)")
                # never int() thousands of digits (ValueError past 4300): too many digits is too large
                size = int(length) if len(length.lstrip("0")) <= len(str(MAX_BODY)) else MAX_BODY + 1
                if size > MAX_BODY:
                    raise RequestError(HTTPStatus.REQUEST_ENTITY_TOO_LARGE, f"body larger than {MAX_BODY} bytes")
                try:
                    raw = self.rfile.read(size)
                except (TimeoutError, socket.timeout):
                    raise RequestError(HTTPStatus.REQUEST_TIMEOUT,
                                       f"the request did not arrive within {READ_TIMEOUT_S:g} s") from None
                if len(raw) < size:
                    raise RequestError(HTTPStatus.BAD_REQUEST, "the body is shorter than its Content-Length")
                try:
                    body = json.loads(raw.decode("utf-8"))
                except RecursionError:
                    raise RequestError(HTTPStatus.BAD_REQUEST, "body is nested too deeply") from None
                except ValueError:  # not UTF-8, not JSON, or a number int() refuses (over 4300 digits)
                    raise RequestError(HTTPStatus.BAD_REQUEST, "body is not valid JSON") from None
                self._json(HTTPStatus.OK, app.answer(body))
            except RequestError as err:
                self.close_connection = True
                self._error(err)
            except StoreError as err:  # not committed: never acknowledged
                self.close_connection = True
                self._error(RequestError(HTTPStatus.SERVICE_UNAVAILABLE, f"answer not saved ({err}); try again"))
            except DataError as err:
                self.close_connection = True
                self._error(RequestError(HTTPStatus.SERVICE_UNAVAILABLE, str(err)))

    return Handler


# ------------------------------------------------------------------ starting


def _loopback(host: str) -> bool:
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


class _Refused:
    """The 503 that a connection over ``MAX_CONNECTIONS`` gets from the accepting thread."""

    BODY = json.dumps({"error": "the server is busy (too many connections); try again in a moment"}).encode()
    REPLY = (b"HTTP/1.0 503 Service Unavailable\r\nContent-Type: application/json; charset=utf-8\r\n"
             b"Content-Length: " + str(len(BODY)).encode() + b"\r\nRetry-After: 1\r\nCache-Control: no-store\r\n"
             b"Connection: close\r\n\r\n" + BODY)


class HumanServer(ThreadingHTTPServer):
    """``ThreadingHTTPServer`` with at most ``max_connections`` handler threads.

    A connection over the bound is answered 503 by the accepting thread without blocking
    (non-blocking socket, a reply that fits any send buffer) and closed ``REFUSED_LINGER_S``
    later by the serving loop (closing at once, with the request unread, would send a reset
    that can overtake the 503)."""

    daemon_threads = True

    def __init__(self, address: tuple, family: socket.AddressFamily, max_connections: int):
        self.address_family = family
        self._slots = threading.BoundedSemaphore(max_connections)
        self._refused: list[tuple[float, socket.socket]] = []
        super().__init__(address, None)  # type: ignore[arg-type]  # handler set once the port is known

    def process_request(self, request, client_address):
        if not self._slots.acquire(blocking=False):
            self._refuse(request)
            return
        try:
            super().process_request(request, client_address)
        except BaseException:  # no thread started: its slot is free again
            self._slots.release()
            raise

    def process_request_thread(self, request, client_address):
        try:
            super().process_request_thread(request, client_address)
        finally:
            self._slots.release()

    @staticmethod
    def _drain(sock: socket.socket) -> None:
        try:
            while sock.recv(65536):
                pass
        except OSError:  # nothing more to read now (or the peer is gone)
            pass

    def _refuse(self, sock: socket.socket) -> None:
        try:
            sock.setblocking(False)
            self._drain(sock)
            sock.send(_Refused.REPLY)
            sock.shutdown(socket.SHUT_WR)
        except OSError:
            pass
        self._refused.append((time.monotonic() + REFUSED_LINGER_S, sock))
        while len(self._refused) > 4 * MAX_CONNECTIONS:  # a flood: the oldest go at once
            self._close_refused(self._refused.pop(0)[1])
        self.service_actions()

    def _close_refused(self, sock: socket.socket) -> None:
        self._drain(sock)
        try:
            sock.close()
        except OSError:  # pragma: no cover
            pass

    def service_actions(self):  # called by serve_forever after each poll
        now = time.monotonic()
        while self._refused and self._refused[0][0] <= now:
            self._close_refused(self._refused.pop(0)[1])

    def server_close(self):
        super().server_close()
        while self._refused:
            self._close_refused(self._refused.pop()[1])


def _family(host: str) -> socket.AddressFamily:
    return socket.AF_INET6 if ":" in host else socket.AF_INET


def url_host(host: str) -> str:
    """``::1`` -> ``[::1]`` (an IPv6 address in a URL); other hosts as they are."""
    return f"[{host}]" if ":" in host else host


def make_server(app: HumanApp, host: str = "127.0.0.1", port: int = 8765) -> HumanServer:
    """A threaded server on ``host:port`` (IPv6 when ``host`` is an IPv6 address); binding errors
    are one ``DataError`` naming the option to change. A host other than this machine's loopback
    prints a warning: answers are then reachable from the network."""
    if not 0 <= int(port) <= 65535:
        raise DataError(f"--port {port}: a port is 0 to 65535 (0: any free port)")
    if host.startswith("[") and host.endswith("]"):  # --host [::1], as in a URL
        host = host[1:-1]
    try:
        server = HumanServer((host, port), _family(host), MAX_CONNECTIONS)
    except socket.gaierror as err:
        raise DataError(f"cannot listen on --host {host} ({err.strerror}); give an address of this machine, "
                        "e.g. 127.0.0.1 or ::1") from None
    except OverflowError:
        raise DataError(f"--port {port}: a port is 0 to 65535") from None
    except OSError as err:
        if err.errno == errno.EADDRINUSE:
            why = f"port {port} is in use; choose another --port"
        elif err.errno == errno.EADDRNOTAVAIL:
            why = f"{host} is not an address of this machine; choose another --host"
        elif err.errno == errno.EACCES:
            why = "ports below 1024 need privileges; choose another --port"
        elif err.errno == errno.EAFNOSUPPORT:
            why = "this machine has no IPv6; choose an IPv4 --host such as 127.0.0.1"
        else:
            why = "choose another --host or --port"
        raise DataError(f"cannot listen on {host}:{port} ({err.strerror}); {why}") from None
    server.RequestHandlerClass = _handler(app, Gate(host, server.server_address[1]))
    if not _loopback(host):
        print(f"lexprobe: warning: --host {host} makes the page and the answers reachable from the network: "
              "anyone who can reach this machine can read the items and answer as any participant; use "
              "127.0.0.1 unless the network is trusted", file=sys.stderr, flush=True)
    return server
