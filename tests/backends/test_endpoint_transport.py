"""The endpoint client's wire (#33 D6, D8, D9, D15, D16): one deadline per request (a trickling server is cut
at --request-timeout), transport errors retried then one line, redirects never followed (the key never goes
to another host), a URL with user:pass@ refused without printing the password, a key an HTTP header cannot
carry refused without printing it; each before any work where it can be."""

from __future__ import annotations

import json
import threading
import time

import pytest

from lexprobe.backends.client import _retry_after
from lexprobe.cli import main
from lexprobe.errors import ModelError
from lexprobe.models import load_scorer
from tests.backends.fake_openai import Recorder, send, write_raw

pytestmark = pytest.mark.usefixtures("quick_retries")


def _only(path: str, fault, times: int = -1):
    """A ``raw`` hook: ``fault(handler)`` for requests to ``path`` (``times`` of them; -1: all)."""
    left = {"n": times}

    def raw(handler, p, body):
        if p != path or left["n"] == 0:
            return False
        left["n"] -= 1
        return fault(handler)

    return raw


def _json_head(status="200 OK", extra="Content-Type: application/json\r\n") -> bytes:
    return f"HTTP/1.1 {status}\r\n{extra}".encode()


CUT_PLAIN = lambda h: write_raw(h, _json_head() + b"Content-Length: 5000\r\n\r\n{\"choices\": [")  # noqa: E731
CUT_CHUNKED = lambda h: write_raw(h, _json_head() + b"Transfer-Encoding: chunked\r\n\r\n10\r\n{\"choices\": [{\"in\r\n")  # noqa: E731
BAD_STATUS_LINE = lambda h: write_raw(h, b"HTTP/1.1 abc\r\n\r\n")  # noqa: E731
GARBAGE = lambda h: write_raw(h, b"\x00\x01 not http at all\r\n\r\n")  # noqa: E731
TRANSPORT_FAULTS = {"a body cut mid-way": CUT_PLAIN, "a chunked body cut mid-way": CUT_CHUNKED,
                    "a bad status line": BAD_STATUS_LINE, "not HTTP": GARBAGE}


@pytest.mark.parametrize("fault", list(TRANSPORT_FAULTS))
def test_a_transport_error_is_retried_then_one_line(fault, fake, llama):
    remote = load_scorer(fake.url, batch_size=2)
    pairs = [remote.split("the dog", " runs")]
    fake.raw = _only("/v1/completions", TRANSPORT_FAULTS[fault], times=1)
    assert remote.token_logprobs(pairs)[0].shape == llama.token_logprobs(pairs)[0].shape  # retried, then answered
    assert remote.stats["retried_requests"] == 1
    fake.raw = _only("/v1/completions", TRANSPORT_FAULTS[fault])
    fake.requests.clear()
    with pytest.raises(ModelError) as err:
        remote.token_logprobs([remote.split("a cat", " sat")])
    text = str(err.value)
    assert "failed 3 time(s)" in text and "\n" not in text and f"{fake.url}/completions" in text, text
    assert len(fake.calls("/v1/completions")) == 3


def _trickle(stop: threading.Event, first_byte_after: float = 0.0):
    """Headers promising a large body, then one byte every 0.2 s until the client hangs up (or ``stop``)."""

    def fault(handler):
        handler.close_connection = True
        try:
            if first_byte_after:
                stop.wait(first_byte_after)
            handler.wfile.write(_json_head() + b"Content-Length: 100000\r\n\r\n")
            handler.wfile.flush()
            while not stop.is_set():
                handler.wfile.write(b" ")
                handler.wfile.flush()
                stop.wait(0.2)
        except OSError:  # the client hung up
            pass
        return True

    return fault


@pytest.mark.parametrize("how", ["one byte at a time", "nothing at all"])
def test_one_deadline_per_request_not_per_read(how, fake, monkeypatch):
    """D16: ``--request-timeout 1`` against a server sending a byte every 0.2 s (each read is quick, so a
    per-read timeout never fires) or nothing: cut after 1 s per try, then one line."""
    import lexprobe.backends.client as client

    monkeypatch.setattr(client, "RETRIES", 1)
    remote = load_scorer(fake.url, request_timeout=1)
    stop = threading.Event()
    fake.raw = _only("/v1/completions", _trickle(stop, first_byte_after=0 if how == "one byte at a time" else 30))
    started = time.monotonic()
    try:
        with pytest.raises(ModelError) as err:
            remote.token_logprobs([remote.split("the dog", " runs")])
    finally:
        stop.set()
    elapsed = time.monotonic() - started
    assert "no whole answer within 1 s (--request-timeout)" in str(err.value) and "failed 2 time(s)" in str(err.value)
    assert elapsed < 6, elapsed  # two tries of 1 s and a short backoff, not the trickle's length


def test_the_deadline_is_the_cli_option(fake, wdlmpro_data, tmp_path, capsys, monkeypatch):
    import lexprobe.backends.client as client

    monkeypatch.setattr(client, "RETRIES", 0)
    stop = threading.Event()
    fake.raw = _only("/v1/completions", _trickle(stop))
    try:
        assert main(["wdlmpro", "eval", "--data", wdlmpro_data, "--model", fake.url, "--request-timeout", "0.5",
                     "--out", str(tmp_path / "r.json")]) == 2
    finally:
        stop.set()
    err = capsys.readouterr().err.strip()
    shown = [line.rsplit("\r", 1)[-1] for line in err.split("\n")]  # as a terminal shows it: the bar erased
    assert "no whole answer within 0.5 s" in err and len(shown) == 1 and shown[0].startswith("lexprobe: error: ")


@pytest.mark.parametrize("status", [301, 302, 303, 307, 308])
def test_a_redirect_is_never_followed_and_the_key_stays_home(status, fake, wdlmpro_data, tmp_path, capsys,
                                                             monkeypatch):
    """D6: /v1/models answers a redirect to another host (a second server on another port, which records
    what it gets); then the completions POST does."""
    monkeypatch.setenv("LEXPROBE_API_KEY", "sk-redirect-test-key-123")
    with Recorder() as other:
        target = {"Location": f"{other.origin}/v1/models"}
        fake.raw = _only("/v1/models", lambda h: send(h, status, {}, target))
        assert main(["wdlmpro", "eval", "--data", wdlmpro_data, "--model", fake.url,
                     "--out", str(tmp_path / "r.json")]) == 2
        err = capsys.readouterr().err.strip()
        assert f"HTTP {status} redirect to {other.origin}, another origin" in err and len(err.splitlines()) == 1
        assert "does not follow redirects" in err and "server is down" not in err
        fake.raw = None
        remote = load_scorer(fake.url)
        fake.raw = _only("/v1/completions", lambda h: send(h, status, {}, {"Location": f"{other.origin}/steal"}))
        fake.requests.clear()
        with pytest.raises(ModelError) as caught:
            remote.token_logprobs([remote.split("the dog", " runs")])
        assert f"redirect to {other.origin}" in str(caught.value)
        assert len(fake.calls("/v1/completions")) == 1  # not retried either
        assert other.seen == []  # nothing, and no key, ever reached the other host


def test_a_redirect_on_the_same_origin_is_not_followed_either(fake):
    fake.raw = _only("/v1/models", lambda h: send(h, 308, {}, {"Location": "/v1/models/"}))
    with pytest.raises(ModelError) as err:
        load_scorer(fake.url)
    assert f"redirect to {fake.url[:-3]}" in str(err.value) and "another origin" not in str(err.value)


@pytest.mark.parametrize("url", ["http://alice:s3cr3t-pw@127.0.0.1:{port}/v1", "http://:s3cr3t-pw@127.0.0.1:{port}/v1",
                                 "http://s3cr3t-pw@127.0.0.1:{port}/v1"])
def test_user_and_password_in_the_url_are_refused_unprinted(url, fake, wdlmpro_data, tmp_path, capsys):
    """D9: one line that names the host and says where a key goes; the password is never printed, no request."""
    port = fake.url.split(":")[2].split("/")[0]
    out = tmp_path / "r.json"
    assert main(["wdlmpro", "eval", "--data", wdlmpro_data, "--model", url.format(port=port), "--out", str(out)]) == 2
    printed = capsys.readouterr()
    assert "s3cr3t" not in printed.err + printed.out and len(printed.err.strip().splitlines()) == 1
    assert f"127.0.0.1:{port}/v1" in printed.err and "$LEXPROBE_API_KEY" in printed.err
    assert fake.requests == [] and not out.exists()


@pytest.mark.parametrize("url,message", [
    ("{url} ", "whitespace"), (" {url}", "whitespace"), ("{url}\n", "whitespace"), ("{url}/\tx", "whitespace"),
    ("http:///v1", "not an http(s) URL with a host"),
    ("http://127.0.0.1:99999/v1", "the port is not a number"), ("{url}?key=SECRETQUERY", "?query"),
    ("{url}?key=SECRET QUERY", "in its ?query"),
])
def test_an_invalid_url_is_one_line_before_any_request(url, message, fake, wdlmpro_data, tmp_path, capsys):
    """D15: a trailing space once went into http.client as an InvalidURL traceback."""
    assert main(["wdlmpro", "eval", "--data", wdlmpro_data, "--model", url.format(url=fake.url),
                 "--out", str(tmp_path / "r.json")]) == 2
    err = capsys.readouterr().err.strip()
    assert message in err and len(err.splitlines()) == 1 and "SECRET" not in err, err
    assert fake.requests == []


@pytest.mark.parametrize("key,what", [("sk-abc\nx-rest-of-key", "whitespace"), ("sk-abc x-rest-of-key", "whitespace"),
                                      ("sk-abc\tx-rest-of-key", "whitespace"),
                                      ("sk-abcé-rest-of-key", "a character outside printable ASCII"),
                                      ("sk-abc\u2028-rest-of-key", "whitespace"),
                                      ("sk-abc\x7f-rest-of-key", "a control character")])
@pytest.mark.parametrize("variable", ["LEXPROBE_API_KEY", "OPENAI_API_KEY"])
def test_a_key_a_header_cannot_carry_is_one_line_that_does_not_show_it(key, what, variable, fake, wdlmpro_data,
                                                                        tmp_path, capsys, monkeypatch):
    """D8: a newline in the key was a traceback printing the whole key; a non-latin-1 character a
    UnicodeEncodeError traceback. Now: one line naming the variable, before any request."""
    monkeypatch.delenv("LEXPROBE_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.setenv(variable, key)
    assert main(["wdlmpro", "eval", "--data", wdlmpro_data, "--model", fake.url,
                 "--out", str(tmp_path / "r.json")]) == 2
    printed = capsys.readouterr()
    err = printed.err.strip()
    assert f"${variable} holds" in err and what in err and len(err.splitlines()) == 1, err
    assert "rest-of-key" not in printed.err + printed.out and "sk-abc" not in printed.err + printed.out
    assert fake.requests == []


def test_a_key_with_surrounding_whitespace_is_used_trimmed(fake, monkeypatch):
    monkeypatch.setenv("LEXPROBE_API_KEY", "  sk-trim-me  \n")
    load_scorer(fake.url)
    assert {auth for _, _, auth in fake.requests} == {"Bearer sk-trim-me"}


def test_retry_after_in_seconds_or_as_a_date():
    from email.utils import formatdate

    assert _retry_after("3") == 3.0 and _retry_after("-2") == 0.0 and _retry_after("soon") is None
    assert 5 <= _retry_after(formatdate(time.time() + 10, usegmt=True)) <= 10
    assert _retry_after(None) is None


def test_retry_after_is_honoured_and_capped(fake, monkeypatch):
    import lexprobe.backends.client as client

    monkeypatch.setattr(client, "MAX_BACKOFF", 0.3)
    remote = load_scorer(fake.url)
    fake.raw = _only("/v1/completions", lambda h: send(h, 503, {"error": "busy"}, {"Retry-After": "3600"}), times=2)
    started = time.monotonic()
    assert len(remote.token_logprobs([remote.split("the dog", " runs")])) == 1
    assert 0.5 <= time.monotonic() - started < 5  # two waits of 0.3 s (capped), not an hour
    assert remote.stats["retried_requests"] == 2


def test_requests_run_concurrently_and_in_order(fake, llama):
    """``--concurrency``: the requests of one call are in flight together (a slow server answers four at
    once), and the answers come back in the order of the requests."""
    inflight = {"now": 0, "most": 0}
    lock = threading.Lock()
    original = fake.answer

    def slow(method, path, body, auth):
        if path == "/v1/completions":
            with lock:
                inflight["now"] += 1
                inflight["most"] = max(inflight["most"], inflight["now"])
            time.sleep(0.3)
            with lock:
                inflight["now"] -= 1
        return original(method, path, body, auth)

    fake.answer = slow
    remote = load_scorer(fake.url, batch_size=1, concurrency=4)
    pairs = [remote.split(c, x) for c, x in [("the dog", " runs"), ("a cat", " sat"), ("the bank", " of a river"),
                                            ("to run", " fast"), ("a red", " bird")]]
    got, want = remote.token_logprobs(pairs), llama.token_logprobs(pairs)
    assert [g.round(5).tolist() for g in got] == [w.round(5).tolist() for w in want]
    assert inflight["most"] == 4


def test_answers_in_gzip_are_read(fake, llama):
    import gzip

    remote = load_scorer(fake.url)
    pairs = [remote.split("the dog", " runs")]

    def gzipped(handler, path, body):
        if path != "/v1/completions":
            return False
        status, payload = fake.answer("POST", path, body, None)
        return send(handler, status, headers={"Content-Encoding": "gzip"}, body=gzip.compress(json.dumps(payload).encode()))

    fake.raw = gzipped
    assert remote.token_logprobs(pairs)[0].round(5).tolist() == llama.token_logprobs(pairs)[0].round(5).tolist()
