"""An answer's Content-Encoding is decoded under one cap whatever the chain: nested gzip (3.5 KB on the wire once
became 6.9 GB in memory), deflate inside gzip, raw or zlib-wrapped deflate, an error body that is a bomb; an
encoding the client did not ask for (br, zstd) is refused in one line; a legitimate answer in any of them is read
right. The message of an answer past the cap names the right fix: fewer prompts per request only where a request
held several and the answer is not a bomb (a bomb on /v1/models was once told to "lower --batch-size")."""

from __future__ import annotations

import gzip
import json
import os
import subprocess
import sys
import textwrap
import zlib
from pathlib import Path

import pytest

import lexprobe
from lexprobe.backends.decoding import BoundedBody, TooLarge, UnreadableEncoding
from lexprobe.errors import ModelError
from lexprobe.models import load_scorer
from tests.backends.fake_openai import send

pytestmark = pytest.mark.usefixtures("quick_retries")


def _deflate(data: bytes, raw: bool = False) -> bytes:
    packer = zlib.compressobj(9, zlib.DEFLATED, -zlib.MAX_WBITS if raw else zlib.MAX_WBITS)
    return packer.compress(data) + packer.flush()


ENCODERS = {"gzip": gzip.compress, "x-gzip": gzip.compress, "deflate": _deflate}


def _encode(data: bytes, chain: list[str]) -> bytes:
    """``data`` in the Content-Encoding ``chain`` (applied in the order listed, as the header says)."""
    for name in chain:
        data = ENCODERS[name](data)
    return data


def _zeros_gzip(size: int) -> bytes:
    """gzip of ``size`` zero bytes, made a MiB at a time (a bomb's inner layer)."""
    packer = zlib.compressobj(9, zlib.DEFLATED, zlib.MAX_WBITS | 16)
    block = bytes(1 << 20)
    return b"".join(packer.compress(block) for _ in range(size >> 20)) + packer.flush()


def _answer_with(fake, path, chain, status=200, body=None):
    """A ``raw`` hook: the answer to ``path`` (the fake's own, or ``body``) sent in Content-Encoding ``chain``."""
    def raw(handler, p, request):
        if p != path:
            return False
        data = body if body is not None else json.dumps(fake.answer("POST", p, request, None)[1]).encode()
        return send(handler, status, headers={"Content-Encoding": ", ".join(chain)}, body=_encode(data, chain))

    return raw


@pytest.mark.parametrize("chain", [["gzip"], ["deflate"], ["gzip", "gzip"], ["deflate", "gzip"], ["x-gzip"],
                                   ["identity", "gzip", "identity"]])
def test_an_answer_in_any_accepted_chain_is_read_right(chain, fake, llama):
    remote = load_scorer(fake.url, batch_size=2)
    pairs = [remote.split("the dog", " runs"), remote.split("a cat", " sat")]
    fake.raw = _answer_with(fake, "/v1/completions", [c for c in chain if c != "identity"])
    got, want = remote.token_logprobs(pairs), llama.token_logprobs(pairs)
    assert [g.round(5).tolist() for g in got] == [w.round(5).tolist() for w in want]
    assert remote.stats["retried_requests"] == 0


def test_raw_deflate_is_read_too(fake, llama):
    """``deflate`` is zlib-wrapped by the standard; some servers send it raw (httpx reads both, so do we)."""
    remote = load_scorer(fake.url)
    pairs = [remote.split("the dog", " runs")]

    def raw(handler, path, request):
        if path != "/v1/completions":
            return False
        data = json.dumps(fake.answer("POST", path, request, None)[1]).encode()
        return send(handler, 200, headers={"Content-Encoding": "deflate"}, body=_deflate(data, raw=True))

    fake.raw = raw
    assert remote.token_logprobs(pairs)[0].round(5).tolist() == llama.token_logprobs(pairs)[0].round(5).tolist()


def test_the_client_asks_only_for_what_it_decodes(fake):
    seen = []
    fake.raw = lambda handler, path, request: seen.append(handler.headers.get("Accept-Encoding")) or False
    load_scorer(fake.url)
    assert seen and set(seen) == {"gzip, deflate"}


@pytest.mark.parametrize("encoding", ["br", "zstd", "compress", "gzip, br"])
def test_an_encoding_not_asked_for_is_one_line_and_not_retried(encoding, fake):
    fake.raw = lambda h, path, request: path == "/v1/models" and send(h, 200, headers={"Content-Encoding": encoding},
                                                                       body=b"\x00" * 64)
    with pytest.raises(ModelError) as err:
        load_scorer(fake.url)
    assert "neither asks for nor reads" in str(err.value) and len(fake.calls("/v1/models")) == 1


def test_a_chain_deeper_than_a_server_makes_is_refused(fake):
    chain = ["gzip"] * 4
    fake.raw = _answer_with(fake, "/v1/models", chain)
    with pytest.raises(ModelError, match="4 encodings deep"):
        load_scorer(fake.url)


@pytest.mark.parametrize("chain", [["gzip", "gzip"], ["deflate", "gzip"], ["gzip", "deflate"], ["gzip"], []])
def test_every_stage_stops_at_the_cap(chain):
    """The decoder itself: a body past the cap, in any chain, is stopped with at most the cap decoded."""
    data = bytes(4 << 20)
    body = BoundedBody(chain, 1 << 20)
    wire = _encode(data, chain)
    with pytest.raises(TooLarge):
        for i in range(0, len(wire), 4096):
            body.feed(wire[i:i + 4096])
        body.finish()
    assert len(body.kept()) <= 1 << 20


def test_an_unknown_encoding_is_refused_by_the_decoder():
    with pytest.raises(UnreadableEncoding):
        BoundedBody(["gzip", "br"], 1 << 20)


#: a process of its own (its peak memory is its own): a server answering a nested bomb to every request, and an
#: Endpoint asking it once; prints the error line and how much the peak resident memory grew
BOMB_PROBE = textwrap.dedent("""
    import json, resource, sys, threading, zlib
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
    from lexprobe.backends.client import Endpoint
    from lexprobe.errors import ModelError

    chain, status, path = json.loads(sys.argv[1])
    packer = zlib.compressobj(9, zlib.DEFLATED, zlib.MAX_WBITS | 16)
    inner = b"".join(packer.compress(bytes(1 << 20)) for _ in range(512)) + packer.flush()  # 512 MiB of zeros
    outer = zlib.compressobj(9, zlib.DEFLATED, (zlib.MAX_WBITS | 16) if chain[1] == "gzip" else zlib.MAX_WBITS)
    bomb = outer.compress(inner) + outer.flush()
    del inner

    class Handler(BaseHTTPRequestHandler):
        def _any(self):
            self.rfile.read(int(self.headers.get("Content-Length") or 0))
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Encoding", ", ".join(chain))
            self.send_header("Content-Length", str(len(bomb)))
            self.end_headers()
            self.wfile.write(bomb)
        do_GET = do_POST = _any
        def log_message(self, *a):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    endpoint = Endpoint(f"http://127.0.0.1:{server.server_address[1]}/v1", retries=0)
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    try:
        if path == "/models":
            endpoint.get(path)
        else:
            endpoint.post(path, {"model": "m", "prompt": [[1, 2], [3, 4]], "echo": True})
        message = "no error"
    except ModelError as err:
        message = str(err)
    grown = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) / 1024
    print(json.dumps({"message": message, "grown_mib": grown, "wire": len(bomb)}))
""")


@pytest.mark.parametrize("chain,status,path", [(["gzip", "gzip"], 200, "/models"),
                                               (["gzip", "deflate"], 200, "/completions"),
                                               (["gzip", "gzip"], 500, "/completions")])
def test_a_nested_bomb_is_stopped_at_the_cap_in_memory_too(chain, status, path, tmp_path):
    """The inner layer inflates to 512 MiB; the client never holds more than about the 64 MiB cap."""
    env = {**os.environ, "PYTHONPATH": str(Path(lexprobe.__file__).parents[1])}
    for name in ("HTTP_PROXY", "http_proxy", "ALL_PROXY", "all_proxy"):
        env.pop(name, None)
    done = subprocess.run([sys.executable, "-c", BOMB_PROBE, json.dumps([chain, status, path])], capture_output=True,
                          text=True, env=env, timeout=300, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    probe = json.loads(done.stdout)
    assert probe["wire"] < 4 << 20 and probe["grown_mib"] < 200, probe
    if status == 200:
        assert "decodes to more than 64 MiB" in probe["message"] and "compression bomb" in probe["message"]
        assert "--batch-size" not in probe["message"]  # no number of prompts makes a bomb smaller
    else:
        assert "HTTP 500" in probe["message"] and "failed 1 time(s)" in probe["message"]  # the error's text, cut


def test_a_batch_too_large_for_the_cap_is_told_to_send_fewer_prompts(fake, monkeypatch):
    import lexprobe.backends.client as client

    remote = load_scorer(fake.url, batch_size=4)
    monkeypatch.setattr(client, "MAX_ANSWER_BYTES", 512)
    with pytest.raises(ModelError) as err:
        remote.token_logprobs([remote.split(c, x) for c, x in [("the dog", " runs"), ("a cat", " sat"),
                                                                ("to run", " fast"), ("a red", " bird")]])
    assert "lower --batch-size" in str(err.value) and "compression bomb" not in str(err.value)


def test_one_prompt_too_large_for_the_cap_is_not_told_to_lower_the_batch_size(fake, monkeypatch):
    import lexprobe.backends.client as client

    remote = load_scorer(fake.url, batch_size=1)
    monkeypatch.setattr(client, "MAX_ANSWER_BYTES", 64)
    with pytest.raises(ModelError) as err:
        remote.token_logprobs([remote.split("the dog", " runs")])
    assert "--batch-size" not in str(err.value) and "no answer to this request is that large" in str(err.value)
