"""The participants' web page and its small JSON API (standard library only).

Routes: ``GET /`` the page; ``GET /api/items`` the items without answers;
``GET /api/progress?participant=P`` what P has answered; ``POST /api/answer``
``{"participant", "item", "answer"}``. Every request is validated here: unknown
items, partial or non-one-to-one alignments, malformed or oversized bodies get a
4xx with a message the page shows. No request value reaches a file path (the page
is one fixed package file) or an SQL string (the store binds parameters).
"""

from __future__ import annotations

import json
import logging
import re
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from importlib import resources
from urllib.parse import parse_qs, urlsplit

from lexprobe.human.items import AnswerError, check_answer, public_items
from lexprobe.human.store import AnswerStore

MAX_BODY = 64 * 1024
PARTICIPANT = re.compile(r"^[A-Za-z0-9_-]{1,40}$")
log = logging.getLogger(__name__)


class RequestError(Exception):
    def __init__(self, status: HTTPStatus, message: str):
        super().__init__(message)
        self.status = status


class HumanApp:
    """The state one server holds: an item set and the store its answers go to."""

    def __init__(self, item_set: dict, store: AnswerStore):
        self.item_set = item_set
        self.store = store
        self.items = {it["id"]: it for it in item_set["items"]}
        self.public = {"set_id": item_set["set_id"], "benchmark": item_set["benchmark"],
                       "items": public_items(item_set)}
        self.page = resources.files("lexprobe.human").joinpath("page.html").read_bytes()
        store.add_item_set(item_set)

    @staticmethod
    def participant(value) -> str:
        if not isinstance(value, str) or not PARTICIPANT.match(value):
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
        self.store.save_answer(self.item_set["set_id"], who, item["id"], answer)
        return self.progress(who)


def _handler(app: HumanApp):
    class Handler(BaseHTTPRequestHandler):
        server_version = "lexprobe-human"

        def log_message(self, fmt, *args):  # quiet by default; -v shows requests
            log.info("%s %s", self.address_string(), fmt % args)

        def _send(self, status: HTTPStatus, body: bytes, ctype: str) -> None:
            self.send_response(status)
            self.send_header("Content-Type", ctype)
            self.send_header("Content-Length", str(len(body)))
            self.send_header("Cache-Control", "no-store")
            self.send_header("X-Content-Type-Options", "nosniff")
            self.end_headers()
            self.wfile.write(body)

        def _json(self, status: HTTPStatus, obj) -> None:
            self._send(status, json.dumps(obj, ensure_ascii=False).encode("utf-8"), "application/json; charset=utf-8")

        def _error(self, err: RequestError) -> None:
            self._json(err.status, {"error": str(err)})

        def do_GET(self):  # noqa: N802 - http.server API
            url = urlsplit(self.path)
            try:
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

        def do_POST(self):  # noqa: N802
            try:
                if urlsplit(self.path).path != "/api/answer":
                    raise RequestError(HTTPStatus.NOT_FOUND, "not found")
                length = self.headers.get("Content-Length")
                if length is None or not length.isdigit():
                    raise RequestError(HTTPStatus.LENGTH_REQUIRED, "Content-Length required")
                if int(length) > MAX_BODY:
                    raise RequestError(HTTPStatus.REQUEST_ENTITY_TOO_LARGE, f"body larger than {MAX_BODY} bytes")
                raw = self.rfile.read(int(length))
                try:
                    body = json.loads(raw.decode("utf-8"))
                except (UnicodeDecodeError, json.JSONDecodeError):
                    raise RequestError(HTTPStatus.BAD_REQUEST, "body is not valid JSON") from None
                self._json(HTTPStatus.OK, app.answer(body))
            except RequestError as err:
                self.close_connection = True
                self._error(err)

    return Handler


def make_server(app: HumanApp, host: str = "127.0.0.1", port: int = 8765) -> ThreadingHTTPServer:
    server = ThreadingHTTPServer((host, port), _handler(app))
    server.daemon_threads = True
    return server
