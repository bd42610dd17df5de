"""Issue #26, item 3 and D7, D11, D14, D22, D27, D28, D29: the human server under slow, many or odd
callers and on IPv6, the pooled human result, and `compare`'s messages.

Each test fails on the code before the fix (d7b2e00): a trickled body was answered after it
finished (the timeout was per ``recv``) and threads were unbounded; ``²`` in Content-Length or the
Host port and a 5000-digit integer in a body were tracebacks with the connection dropped; the
participant ``pooled`` lost their file to the pooled result; ``--host ::1`` could not listen; a
read-only ``--db`` folder was a traceback; ``compare`` warned about the choose options of a
likelihood run with two identical truncated dicts, and printed an empty table (exit 0) when no unit
was scored in both runs. Network tests use loopback addresses only, each bounded in time.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from lexprobe.cli import main
from tests.human.helpers import RunningServer, item_set, serve_args, wdlmpro_data

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def server(tmp_path):
    s = item_set(tmp_path, "coda21", subset=2)
    srv = RunningServer(s, tmp_path / "answers.sqlite")
    yield srv, s
    srv.stop()


def _connect(port: int, host: str = "127.0.0.1") -> socket.socket:
    return socket.create_connection((host, port), timeout=15)


def _reply(sock: socket.socket, limit_s: float = 15) -> bytes:
    """Everything the server sends until it closes (or ``limit_s``)."""
    sock.settimeout(limit_s)
    data = b""
    try:
        while chunk := sock.recv(65536):
            data += chunk
    except (TimeoutError, ConnectionResetError):
        pass
    sock.close()
    return data


def _raw(srv, head: bytes, body: bytes = b"") -> bytes:
    sock = _connect(srv.port)
    sock.sendall(head + b"\r\n" + body)
    return _reply(sock)


def _post_head(srv, length: bytes, host: bytes | None = None) -> bytes:
    host = host or f"127.0.0.1:{srv.port}".encode()
    return (b"POST /api/answer HTTP/1.1\r\nHost: " + host + b"\r\nX-Lexprobe-Token: " + srv.app.token.encode()
            + b"\r\nContent-Type: application/json\r\nContent-Length: " + length + b"\r\n")


def _status(reply: bytes) -> int | None:
    m = re.match(rb"HTTP/1\.[01] (\d{3}) ", reply)
    return int(m.group(1)) if m else None


def _error(reply: bytes) -> str:
    return json.loads(reply.split(b"\r\n\r\n", 1)[1])["error"]


# --- D7 (item 3): each request's total time and the number of threads are bounded ------------------

def test_d7_a_trickled_body_is_cut_at_the_deadline_with_408(tmp_path, monkeypatch):
    import lexprobe.human.server as server_module

    monkeypatch.setattr(server_module, "READ_TIMEOUT_S", 1.5)
    s = item_set(tmp_path, "coda21", subset=2)
    srv = RunningServer(s, tmp_path / "answers.sqlite")
    sock = _connect(srv.port)
    stop = threading.Event()

    def trickle():  # one byte every 0.4 s: each recv is well within 1.5 s, the body takes 4 s
        try:
            for _ in range(10):
                if stop.wait(0.4):
                    return
                sock.sendall(b"x")
        except OSError:  # the server closed the connection: what the fix does
            pass

    try:
        sock.sendall(_post_head(srv, b"10") + b"\r\n")
        started = time.monotonic()
        sender = threading.Thread(target=trickle, daemon=True)
        sender.start()
        reply = _reply(sock)
        took = time.monotonic() - started
        stop.set()
        sender.join(timeout=5)
        assert _status(reply) == 408, reply[:100]
        assert "did not arrive within 1.5 s" in _error(reply)
        assert took < 3.5, f"answered after {took:.1f} s: the deadline is 1.5 s for the whole request"
    finally:
        stop.set()
        srv.stop()


def test_d7_trickled_headers_are_cut_at_the_deadline_too(tmp_path, monkeypatch):
    import lexprobe.human.server as server_module

    monkeypatch.setattr(server_module, "READ_TIMEOUT_S", 1.5)
    s = item_set(tmp_path, "coda21", subset=2)
    srv = RunningServer(s, tmp_path / "answers.sqlite")
    sock = _connect(srv.port)
    try:
        started = time.monotonic()
        closed_after = None
        sock.settimeout(0.4)
        for byte in b"GET / HTTP/1.0\r\nX-Slow: " + b"a" * 40:  # a header line that never ends
            try:
                sock.sendall(bytes([byte]))
                if sock.recv(1) == b"":
                    closed_after = time.monotonic() - started
                    break
            except TimeoutError:
                continue
            except OSError:
                closed_after = time.monotonic() - started
                break
        assert closed_after is not None and closed_after < 3.5, "the server held a trickled request line"
    finally:
        sock.close()
        srv.stop()


def test_d7_connections_over_the_bound_get_503_at_once(tmp_path, monkeypatch):
    import lexprobe.human.server as server_module

    monkeypatch.setattr(server_module, "MAX_CONNECTIONS", 2, raising=False)  # (the code before had no bound)
    monkeypatch.setattr(server_module, "READ_TIMEOUT_S", 20.0)
    s = item_set(tmp_path, "coda21", subset=2)
    srv = RunningServer(s, tmp_path / "answers.sqlite")
    holders = []
    try:
        for _ in range(2):  # two slow callers, each holding a handler thread
            h = _connect(srv.port)
            h.sendall(b"GET / HTTP/1.0\r\n")
            holders.append(h)
        time.sleep(0.5)
        threads = threading.active_count()
        started = time.monotonic()
        reply = _raw(srv, f"GET / HTTP/1.0\r\nHost: 127.0.0.1:{srv.port}\r\n".encode())
        assert _status(reply) == 503, reply[:100]
        assert "busy" in _error(reply) and time.monotonic() - started < 3
        assert threading.active_count() <= threads  # no thread was started for it
        for h in holders:
            h.close()
        deadline = time.monotonic() + 10
        while True:  # the slots are free again once the slow callers are gone
            reply = _raw(srv, f"GET / HTTP/1.0\r\nHost: 127.0.0.1:{srv.port}\r\n".encode())
            if _status(reply) == 200 or time.monotonic() > deadline:
                break
            time.sleep(0.2)
        assert _status(reply) == 200
    finally:
        for h in holders:
            h.close()
        srv.stop()


# --- D22: numbers the server cannot read are a 4xx with one line, never a traceback -----------------

@pytest.mark.parametrize("case,status,words", [
    ("superscript length", 400, "Content-Length must be a number"),
    ("5000-digit length", 413, "larger than"),
    ("superscript port", 403, "Host header"),
    ("5000-digit port", 403, "Host header"),
    ("5000-digit integer in the body", 400, "not valid JSON"),
])
def test_d22_unreadable_numbers_are_a_4xx_not_a_traceback(server, capfd, case, status, words):
    srv, s = server
    item = s["items"][0]
    body = json.dumps({"participant": "p1", "item": item["id"], "answer": item["answer"]}).encode()
    head = {
        "superscript length": _post_head(srv, b"\xb2"),
        "5000-digit length": _post_head(srv, b"9" * 5000),
        "superscript port": _post_head(srv, str(len(body)).encode(), host=b"127.0.0.1:\xb9"),
        "5000-digit port": _post_head(srv, str(len(body)).encode(), host=b"127.0.0.1:" + b"8" * 5000),
    }.get(case)
    if head is None:
        body = b'{"participant": ' + b"1" * 5000 + b"}"
        head = _post_head(srv, str(len(body)).encode())
    reply = _raw(srv, head, body)
    assert _status(reply) == status, reply[:100]
    message = _error(reply)
    assert words in message and "\n" not in message
    assert "Traceback" not in capfd.readouterr().err
    assert srv.store.answers(s["set_id"]) == {}
    answer = json.dumps({"participant": "p1", "item": item["id"], "answer": item["answer"]}).encode()
    good = _raw(srv, _post_head(srv, str(len(answer)).encode()), answer)
    assert _status(good) == 200 and list(srv.store.answers(s["set_id"])) == ["p1"]  # the server is still up


# --- D11: a participant called "pooled" keeps their file --------------------------------------------

@pytest.mark.parametrize("benchmark", ["coda21", "wdlmpro"])
def test_d11_participant_pooled_and_the_pool_both_get_a_file(tmp_path, capsys, benchmark):
    from lexprobe.human.store import AnswerStore

    s = item_set(tmp_path, benchmark, subset=2)
    db = tmp_path / "answers.sqlite"
    store = AnswerStore(db)
    store.add_item_set(s)
    first, second = s["items"][0], s["items"][1]
    store.save_answer(s["set_id"], "pooled", first["id"], first["answer"])
    store.save_answer(s["set_id"], "alice", first["id"], first["answer"])
    store.save_answer(s["set_id"], "alice", second["id"], second["answer"])
    store.close()
    out = tmp_path / "scores"
    assert main(["human", "score", "--db", str(db), "--out", str(out)]) == 0
    files = {p.name: json.loads(p.read_text()) for p in out.glob("*.json")}
    tasks = sorted({it["task"] for it in s["items"]}) if benchmark == "wdlmpro" else [None]
    assert len(files) == 3 * len(tasks), sorted(files)  # alice, pooled (the person) and the pool, per task
    names = [r["model"]["name"] for r in files.values()]
    for who in ("human:alice", "human:pooled", "human:@pooled"):
        assert names.count(who) == len(tasks), names
    person = [r for r in files.values() if r["model"]["name"] == "human:pooled"]
    pool = [r for r in files.values() if r["model"]["name"] == "human:@pooled"]
    assert {i["participant"] for r in person for i in r["instances"]} == {"pooled"}
    assert {i["participant"] for r in pool for i in r["instances"]} == {"pooled", "alice"}
    assert sum(len(r["instances"]) for r in pool) == 3
    assert capsys.readouterr().out.count(" -> ") == len(files)


# --- D14: a read-only folder for --db is one line ------------------------------------------------------

@pytest.fixture
def read_only_folder(tmp_path):
    folder = tmp_path / "ro"
    folder.mkdir()
    if os.geteuid() == 0:  # root writes anywhere DAC allows nothing: a read-only mount is the real thing
        done = subprocess.run(["mount", "-t", "tmpfs", "-o", "ro,size=1m", "tmpfs", str(folder)],
                              capture_output=True) if shutil.which("mount") else None
        if done is None or done.returncode != 0:
            pytest.skip("root without the right to mount: no read-only folder to test with")
        yield folder
        subprocess.run(["umount", str(folder)], capture_output=True)
    else:
        folder.chmod(0o555)
        yield folder
        folder.chmod(0o755)


def test_d14_serve_with_db_in_a_read_only_folder_is_one_line(tmp_path, read_only_folder, capsys):
    args = serve_args(tmp_path, "coda21")
    db = read_only_folder / "a.sqlite"
    code = main(["human", "serve", "--benchmark", "coda21", "--subset", "2", "--data", args.data,
                 "--db", str(db), "--port", "0"])
    err = capsys.readouterr().err.strip()
    assert code == 2 and err.count("\n") == 0, err
    assert str(db) in err and "--db" in err and "writ" in err


# --- D29: an IPv6 --host ---------------------------------------------------------------------------------

def _has_ipv6_loopback() -> bool:
    if not socket.has_ipv6:
        return False
    try:
        with socket.socket(socket.AF_INET6, socket.SOCK_STREAM) as s:
            s.bind(("::1", 0))
        return True
    except OSError:
        return False


@pytest.mark.skipif(not _has_ipv6_loopback(), reason="this machine has no IPv6 loopback")
def test_d29_serve_on_ipv6_loopback_answers_a_real_request(tmp_path):
    import http.client

    args = serve_args(tmp_path, "coda21")
    proc = subprocess.Popen(
        [sys.executable, "-m", "lexprobe", "human", "serve", "--benchmark", "coda21", "--subset", "2",
         "--data", args.data, "--db", args.db, "--host", "::1", "--port", "0"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=REPO,
        env={**os.environ, "PYTHONPATH": str(REPO)})
    try:
        timer = threading.Timer(60, proc.kill)  # bounded: a server that never prints is killed
        timer.start()
        line = proc.stdout.readline()
        timer.cancel()
        m = re.search(r"http://\[::1\]:(\d+)/", line)
        assert m, (line, proc.stderr.read() if proc.poll() is not None else "")
        port = int(m.group(1))
        conn = http.client.HTTPConnection("::1", port, timeout=15)
        conn.request("GET", "/")  # Host: [::1]:port, as a browser sends it
        resp = conn.getresponse()
        page = resp.read()
        conn.close()
        assert resp.status == 200 and b"lexprobe-token" in page
        token = re.search(rb'name="lexprobe-token" content="([^"]+)"', page).group(1).decode()
        conn = http.client.HTTPConnection("::1", port, timeout=15)
        conn.request("GET", "/api/items", headers={"X-Lexprobe-Token": token, "Origin": f"http://[::1]:{port}"})
        resp = conn.getresponse()
        items = json.loads(resp.read())
        conn.close()
        assert resp.status == 200 and len(items["items"]) == 2
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:  # pragma: no cover
            proc.kill()


def test_d29_an_ipv6_host_gets_an_ipv6_server(tmp_path):
    from lexprobe.human.server import HumanApp, make_server
    from lexprobe.human.store import AnswerStore

    if not _has_ipv6_loopback():
        pytest.skip("this machine has no IPv6 loopback")
    store = AnswerStore(tmp_path / "a.sqlite")
    try:
        app = HumanApp(item_set(tmp_path, "coda21", subset=2), store)
        for host in ("::1", "[::1]"):  # as an address, and as written in a URL
            server = make_server(app, host, 0)
            assert server.socket.family == socket.AF_INET6 and server.server_address[0] == "::1"
            server.server_close()
    finally:
        store.close()


# --- D27 and D28: compare's messages -----------------------------------------------------------------

@pytest.fixture(scope="module")
def wdl_runs(tmp_path_factory, tiny_gpt2):
    """WDLMPro by the tiny GPT-2: likelihood, choose (and a copy recorded with the letters template), and
    choose with a 16-position GPT-2 that skips every item as too long."""
    from tests.tiny_models import build_tiny_gpt2

    folder = tmp_path_factory.mktemp("wdl-runs")
    data = wdlmpro_data(folder)
    short = build_tiny_gpt2(folder / "gpt2-16", positions=16)
    runs = {"likelihood": (tiny_gpt2, []), "choose": (tiny_gpt2, ["--method", "choose"]),
            "skipped": (short, ["--method", "choose"])}
    files = {}
    for name, (model, extra) in runs.items():
        files[name] = folder / f"{name}.json"
        assert main(["wdlmpro", "eval", "--data", str(data), "--model", str(model), "--device", "cpu",
                     "--out", str(files[name])] + extra) == 0
    letters = json.loads(files["choose"].read_text())  # as `--template letters` records it (one run less)
    letters["config"]["choose"]["template"] = "letters"
    letters["config"]["choose"]["template_record"]["name"] = "letters"
    files["letters"] = folder / "letters.json"
    files["letters"].write_text(json.dumps(letters))
    return files


def test_d27_likelihood_vs_choose_does_not_warn_about_unused_choose_options(wdl_runs, capsys):
    assert main(["compare", str(wdl_runs["likelihood"]), str(wdl_runs["choose"])]) == 0
    err = capsys.readouterr().err
    assert "method: likelihood vs choose" in err
    assert "config choose" not in err, err


def test_d27_choose_runs_name_the_option_that_differs(wdl_runs, capsys):
    assert main(["compare", str(wdl_runs["choose"]), str(wdl_runs["letters"])]) == 0
    warnings = [line for line in capsys.readouterr().err.splitlines() if line.startswith("warning:")]
    assert any(line.endswith("config choose.template: default vs letters") for line in warnings), warnings
    for line in warnings:  # never two sides that read the same
        sides = line.split(": ", 2)[-1].split(" vs ")
        assert len(sides) != 2 or sides[0] != sides[1], line


def test_d27_two_long_values_that_shorten_alike_say_where_they_differ():
    from lexprobe.report.compare import _versus

    assert _versus("x" * 100 + "a", "x" * 100 + "b") == "x" * 77 + "... vs the same up to character 100 (a vs b)"
    assert _versus({"name": "default"}, {"name": "letters"}) == "default (template) vs letters (template)"


def test_d28_no_unit_scored_in_both_runs_is_one_line(wdl_runs, capsys):
    skipped = json.loads(wdl_runs["skipped"].read_text())
    assert skipped["counts"]["skipped_too_long"] > 0  # the premise: every item too long for 16 positions
    code = main(["compare", str(wdl_runs["skipped"]), str(wdl_runs["choose"])])
    captured = capsys.readouterr()
    assert code == 2 and "task  POS" not in captured.out, captured.out
    err = captured.err.strip().splitlines()[-1]
    assert "no target has a score in both" in err
    assert str(wdl_runs["skipped"]) in err and str(wdl_runs["choose"]) in err
