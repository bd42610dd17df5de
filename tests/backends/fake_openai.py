"""A small OpenAI-compatible server for tests (stdlib ``http.server`` in a thread), backed by an
in-process ``CausalLMScorer``: ``/v1/completions`` answers ``echo`` + ``logprobs`` with the model's
real log-probabilities and greedy generation with its real ``generate``, so the endpoint backend
can be compared with the in-process path without vLLM. Faults on demand: a storm of 500s or 429s,
death after N completion calls, a tokenizer that disagrees, a chat-only server, several models;
``mutate`` rewrites the JSON of good answers (a malformed answer of any shape), ``raw`` takes over the
socket (a trickle, a body cut mid-way, a bad status line, a redirect). ``version`` makes it answer
``/version`` as vLLM does (and echo ``token_id:N`` tokens when asked). Every request is recorded
(path, body, Authorization header); error bodies echo the header back, as a careless server might,
and ``echo_auth`` puts it in the model ids and the generated text too, so a test can check the client
never repeats it. ``token_ids_ignored`` makes it echo each token's text even when asked for ids (a server
that ignores ``return_tokens_as_token_ids``), ``token_text`` how it writes a token's text. ``tls``
serves https with a certificate (``self_signed``: openssl's, made for the test). ``Recorder`` is a
second server that records every request it gets (a redirect's target: the key must never reach it);
``RecordingProxy`` an HTTP proxy that records what goes through it (absolute-URI requests forwarded,
CONNECT tunnelled) and can answer every request with a status of its own (407, 502).
"""

from __future__ import annotations

import http.client
import json
import select
import socket
import ssl
import subprocess
import threading
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, Callable


class Recorder:
    """A server on 127.0.0.1 that answers 200 ``{}`` to everything and records (method, path, headers)."""

    def __init__(self):
        self.seen: list[tuple[str, str, dict[str, str]]] = []
        recorder = self

        class Handler(BaseHTTPRequestHandler):
            def _any(self):
                recorder.seen.append((self.command, self.path, dict(self.headers.items())))
                length = int(self.headers.get("Content-Length") or 0)
                if length:
                    self.rfile.read(length)
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", "2")
                self.end_headers()
                self.wfile.write(b"{}")

            do_GET = do_POST = do_PUT = _any  # noqa: N815

            def log_message(self, *args):
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    @property
    def origin(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}"

    def __enter__(self) -> "Recorder":
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


class RecordingProxy:
    """An HTTP proxy on 127.0.0.1: records (method, target, headers) of every request it receives, forwards an
    absolute-URI request (``GET http://host/path``) to its host and tunnels a CONNECT (``https://``) as it is;
    ``answer`` set: every request answered with that status instead."""

    def __init__(self):
        self.seen: list[tuple[str, str, dict[str, str]]] = []
        self.answer: int | None = None
        proxy = self

        class Handler(BaseHTTPRequestHandler):
            def _refused(self) -> bool:
                if proxy.answer is None:
                    return False
                data = json.dumps({"error": {"message": f"proxy says {proxy.answer}"}}).encode()
                self.send_response(proxy.answer)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)
                return True

            def _forward(self):
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else b""
                proxy.seen.append((self.command, self.path, dict(self.headers.items())))
                if self._refused():
                    return
                target = urllib.parse.urlsplit(self.path)
                upstream = http.client.HTTPConnection(target.hostname, target.port or 80, timeout=60)
                hop = ("proxy-connection", "connection", "keep-alive", "proxy-authorization")
                upstream.request(self.command, target.path + (f"?{target.query}" if target.query else ""),
                                 body=body, headers={k: v for k, v in self.headers.items() if k.lower() not in hop})
                answer = upstream.getresponse()
                data = answer.read()
                self.send_response(answer.status)
                for name, value in answer.getheaders():
                    if name.lower() not in ("transfer-encoding", "connection", "content-length"):
                        self.send_header(name, value)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)
                upstream.close()

            do_GET = do_POST = _forward  # noqa: N815

            def do_CONNECT(self):  # noqa: N802
                proxy.seen.append(("CONNECT", self.path, dict(self.headers.items())))
                if self._refused():
                    return
                host, _, port = self.path.rpartition(":")
                upstream = socket.create_connection((host, int(port)), timeout=60)
                self.send_response(200, "Connection established")
                self.end_headers()
                self.close_connection = True
                ends = [self.connection, upstream]
                try:
                    while True:
                        ready, _, _ = select.select(ends, [], [], 60)
                        if not ready:
                            return
                        for end in ready:
                            data = end.recv(65536)
                            if not data:
                                return
                            (upstream if end is self.connection else self.connection).sendall(data)
                except OSError:
                    return
                finally:
                    upstream.close()

            def log_message(self, *args):
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    @property
    def origin(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}"

    def __enter__(self) -> "RecordingProxy":
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


def self_signed(folder: Path, name: str = "server", hosts: str = "IP:127.0.0.1,DNS:localhost") -> tuple[Path, Path]:
    """(certificate, key) in PEM of a self-signed certificate for ``hosts`` (openssl, made for the test)."""
    cert, key = folder / f"{name}.pem", folder / f"{name}.key"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", str(key), "-out",
                    str(cert), "-days", "2", "-subj", f"/CN={name}", "-addext", f"subjectAltName={hosts}"],
                   check=True, capture_output=True)
    return cert, key


class FakeOpenAI:
    def __init__(self, scorer: Any, name: str = "fake-model", models: list[str] | None = None,
                 root: str | None = None, port: int = 0, tls: tuple[Path, Path] | None = None):
        self.scorer = scorer
        self.name = name
        self.models = models or [name]
        self.root = root  # the `root` /v1/models reports (default: the model's name)
        self.max_model_len: Any = scorer.max_length
        self.version: str | None = None  # answer /version (as vLLM) with this
        #: (path, body, answer) -> answer: rewrites the JSON of every 200 answer (None: untouched)
        self.mutate: Callable[[str, dict, Any], Any] | None = None
        self.mutate_left = -1  # how many answers ``mutate`` rewrites (-1: all)
        #: (handler, path, body) -> bool: writes the whole response itself when it returns True
        self.raw: Callable[[Any, str, dict], bool] | None = None
        self.echo_auth = False  # generated and chat text end with the Authorization header
        self.echo_auth_ids = False  # so do the model ids of /v1/models
        self.requests: list[tuple[str, dict, str | None]] = []
        self.storm: int | None = None  # answer every call with this status (500, 429, ...)
        self.storm_left = -1  # how many more calls the storm lasts (-1: for ever)
        self.die_after: int | None = None  # completions calls answered before the server "dies" (500 for ever)
        self.completions_calls = 0
        self.chat_only = False
        self.wrong_tokens = False
        #: echo each token's text even when asked for ids (``return_tokens_as_token_ids`` ignored)
        self.token_ids_ignored = False
        #: how an echoed token's text is written (default: the tokenizer's decoding of the one token)
        self.token_text: Callable[[int], str] | None = None
        self.lock = threading.Lock()
        self.httpd = ThreadingHTTPServer(("127.0.0.1", port), self._handler())
        self.httpd.daemon_threads = True
        self.scheme = "http"
        if tls is not None:
            context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
            context.load_cert_chain(*map(str, tls))
            self.httpd.socket = context.wrap_socket(self.httpd.socket, server_side=True)
            self.scheme = "https"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"{self.scheme}://127.0.0.1:{self.httpd.server_address[1]}/v1"

    def __enter__(self) -> "FakeOpenAI":
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()

    @property
    def echo_auth_text(self) -> str:
        auths = [a for _, _, a in self.requests if a]
        return auths[-1] if auths else ""

    def calls(self, path: str) -> list[dict]:
        return [body for p, body, _ in self.requests if p == path]

    # ------------------------------------------------------------------ answers
    def answer(self, method: str, path: str, body: dict, auth: str | None) -> tuple[int, Any]:
        with self.lock:
            if self.storm is not None and self.storm_left != 0:
                self.storm_left -= 1
                return self.storm, {"error": {"message": f"overloaded (you sent {auth})"}}
            if path == "/v1/completions":
                if self.chat_only:
                    return 404, {"error": {"message": "not found"}}
                self.completions_calls += 1
                if self.die_after is not None and self.completions_calls > self.die_after:
                    return 500, {"error": {"message": f"engine dead (auth {auth})"}}
        if path == "/v1/models":
            shown = [f"{m}-{auth}" if self.echo_auth_ids else m for m in self.models]
            return 200, {"object": "list", "data": [{"id": m, "object": "model", "root": self.root or m,
                                                      "owned_by": "fake", "max_model_len": self.max_model_len}
                                                     for m in shown]}
        if path == "/version":
            if self.version is None:
                return 404, {"error": {"message": f"no version (auth {auth})"}}
            return 200, {"version": self.version}
        if self.echo_auth_ids and isinstance(body.get("model"), str):
            body = {**body, "model": body["model"].removesuffix(f"-{auth}")}
        if body.get("model") not in self.models:
            return 404, {"error": {"message": f"The model `{body.get('model')}` does not exist."}}
        if path == "/tokenize":
            ids = list(self.scorer.tokenizer(body["prompt"], add_special_tokens=body.get("add_special_tokens", True))
                       ["input_ids"])
            return 200, {"tokens": ids[:-1] if self.wrong_tokens else ids, "count": len(ids)}
        if path == "/v1/completions":
            return 200, self._completions(body)
        if path == "/v1/chat/completions":
            text = "\n".join(m["content"] for m in body["messages"])
            ids = list(self.scorer.tokenizer(text)["input_ids"])
            out = self._generate_ids(ids, body.get("max_tokens", 16), body.get("stop"))
            if self.echo_auth:
                out = f"{out} {auth}"
            return 200, {"choices": [{"index": 0, "message": {"role": "assistant", "content": out}}]}
        return 404, {"error": {"message": f"no route {path}"}}

    def _completions(self, body: dict) -> dict:
        prompts = body["prompt"]
        if isinstance(prompts, str) or (prompts and isinstance(prompts[0], int)):
            prompts = [prompts]
        choices = []
        for i, p in enumerate(prompts):
            ids = list(self.scorer.tokenizer(p)["input_ids"]) if isinstance(p, str) else list(p)
            if body.get("echo"):
                lps = [None] + [float(v) for v in self.scorer.token_logprobs([(tuple(ids[:1]), tuple(ids[1:]))])[0]]
                as_ids = body.get("return_tokens_as_token_ids") and not self.token_ids_ignored
                text = self.token_text or (lambda t: self.scorer.tokenizer.decode([t]))
                tokens = [f"token_id:{t}" if as_ids else text(t) for t in ids]
                choices.append({"index": i, "text": "", "logprobs": {"token_logprobs": lps, "tokens": tokens}})
            else:
                text = self._generate_ids(ids, body.get("max_tokens", 16), body.get("stop"))
                choices.append({"index": i, "text": text + (f" {self.echo_auth_text}" if self.echo_auth else "")})
        return {"choices": choices, "usage": {"prompt_tokens": sum(len(p) for p in prompts
                                                                   if not isinstance(p, str))}}

    def _generate_ids(self, ids: list[int], max_new: int, stop) -> str:
        import torch

        from lexprobe.scorers.causal import cut_at_stop, until_stop

        s = self.scorer
        with torch.inference_mode():
            out = s.model.generate(input_ids=torch.tensor([ids]), attention_mask=torch.ones(1, len(ids), dtype=torch.long),
                                   max_new_tokens=max_new, do_sample=False, num_beams=1, temperature=None, top_p=None,
                                   top_k=None, pad_token_id=s.pad_id, eos_token_id=s.stop_ids() or None)
        return cut_at_stop(s.tokenizer.decode(until_stop(out[0, len(ids):].tolist(), s.stop_ids()),
                                              skip_special_tokens=True), stop)

    def _handler(self):
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def _serve(self, method: str) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = json.loads(self.rfile.read(length) or b"{}") if length else {}
                # recorded as it arrives, before any answer: a client that fails on a (raw) answer finds its
                # request counted (recorded after the write, the count raced the client's error under load)
                with fake.lock:
                    fake.requests.append((self.path, body, self.headers.get("Authorization")))
                if fake.raw is not None and fake.raw(self, self.path, body):
                    return
                status, payload = fake.answer(method, self.path, body, self.headers.get("Authorization"))
                if status == 200 and fake.mutate is not None and fake.mutate_left != 0:
                    fake.mutate_left -= 1
                    payload = fake.mutate(self.path, body, payload)
                data = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                if status == 429:
                    self.send_header("Retry-After", "0")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                try:
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):  # the client gave up on it (a request cancelled)
                    pass

            def do_GET(self):  # noqa: N802
                self._serve("GET")

            def do_POST(self):  # noqa: N802
                self._serve("POST")

            def log_message(self, *args):  # quiet
                pass

        return Handler


def send(handler: Any, status: int, payload: Any = None, headers: dict[str, str] | None = None,
         body: bytes | None = None) -> bool:
    """Answer ``status`` with ``payload`` as JSON (or ``body`` as it is) from a ``raw`` hook; True."""
    data = body if body is not None else json.dumps(payload).encode()
    handler.send_response(status)
    for name, value in {"Content-Type": "application/json", **(headers or {})}.items():
        handler.send_header(name, value)
    handler.send_header("Content-Length", str(len(data)))
    handler.end_headers()
    handler.wfile.write(data)
    return True


def write_raw(handler: Any, data: bytes) -> bool:
    """Write ``data`` as the whole response (status line included) and close the connection; True."""
    handler.close_connection = True
    handler.wfile.write(data)
    handler.wfile.flush()
    return True
