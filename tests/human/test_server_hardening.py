"""Issue #19, items 5-9, 16, 17 and 25: the human page as an attacker (or a second server) meets it.

Each test reproduces a reported failure of the code before the fix: forged answers from
another origin, a participant code with a newline, two servers on one database, a body
that never arrives, nesting that overflows the parser, a foreign or tampered database.
"""

from __future__ import annotations

import http.client
import json
import socket
import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from lexprobe.cli import main
from tests.human.helpers import RunningServer, item_set, serve_args

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def server(tmp_path):
    s = item_set(tmp_path, "coda21", subset=2)
    srv = RunningServer(s, tmp_path / "answers.sqlite")
    yield srv, s
    srv.stop()


def request(srv, method, path, body=None, headers=None, token=True, host=None):
    """(status, reply) of one raw HTTP request: every header is under the test's control."""
    conn = http.client.HTTPConnection("127.0.0.1", srv.port, timeout=20)
    sent = {"Host": host or f"127.0.0.1:{srv.port}"}
    if token:
        sent["X-Lexprobe-Token"] = getattr(srv.app, "token", "")  # (the code before #19 had none)
    if body is not None and not isinstance(body, bytes):
        body = json.dumps(body).encode()
        sent["Content-Type"] = "application/json"
    sent.update(headers or {})
    conn.putrequest(method, path, skip_host=True, skip_accept_encoding=True)
    for k, v in sent.items():
        conn.putheader(k, v)
    if body is not None:
        conn.putheader("Content-Length", str(len(body)))
    conn.endheaders(body)
    resp = conn.getresponse()
    data = resp.read()
    conn.close()
    try:
        return resp.status, json.loads(data)
    except ValueError:
        return resp.status, data


def an_answer(s, who="p1"):
    item = s["items"][0]
    return {"participant": who, "item": item["id"], "answer": item["answer"]}


# --- 5. forgeable answers -------------------------------------------------------------------

@pytest.mark.parametrize("forgery,status", [
    ({"headers": {"Content-Type": "text/plain"}}, 415),                 # a cross-site form / no-preflight fetch
    ({"headers": {"Origin": "http://evil.example"}}, 403),             # another page in the participant's browser
    ({"host": "evil.example:80"}, 403),                                 # DNS rebinding: the attacker's name
    ({"token": False}, 403),                                            # no token: not the page
    ({"headers": {"X-Lexprobe-Token": "guess"}}, 403),                  # a wrong one
    ({"headers": {"Sec-Fetch-Site": "cross-site"}}, 403),
])
def test_5_forged_answers_are_refused(server, forgery, status):
    srv, s = server
    kw = {k: v for k, v in forgery.items() if k != "headers"}
    headers = dict(forgery.get("headers", {}))
    body = json.dumps(an_answer(s)).encode()
    headers.setdefault("Content-Type", "application/json")
    got, reply = request(srv, "POST", "/api/answer", body=body, headers=headers, **kw)
    assert got == status, reply
    assert srv.store.answers(s["set_id"]) == {}  # nothing was stored
    # the same request from the page itself is taken
    got, _ = request(srv, "POST", "/api/answer", body=an_answer(s),
                     headers={"Origin": f"http://127.0.0.1:{srv.port}", "Sec-Fetch-Site": "same-origin"})
    assert got == 200 and srv.store.answers(s["set_id"]) == {"p1": {s["items"][0]["id"]: s["items"][0]["answer"]}}


def test_5_progress_and_items_need_the_host_and_the_token(server):
    srv, s = server
    request(srv, "POST", "/api/answer", body=an_answer(s))
    assert request(srv, "GET", "/api/progress?participant=p1", host=f"evil.example:{srv.port}")[0] == 403
    assert request(srv, "GET", "/api/progress?participant=p1", token=False)[0] == 403
    assert request(srv, "GET", "/api/items", token=False)[0] == 403
    status, reply = request(srv, "GET", "/api/progress?participant=p1")
    assert status == 200 and reply["answered"] == {s["items"][0]["id"]: s["items"][0]["answer"]}
    # the page carries this run's token; another server run has another one
    status, page = request(srv, "GET", "/", token=False)
    assert status == 200 and f'content="{srv.app.token}"'.encode() in page
    assert request(srv, "GET", "/", token=False, host=f"evil.example:{srv.port}")[0] == 403
    assert request(srv, "GET", "/", token=False, host=f"localhost:{srv.port}")[0] == 200
    assert request(srv, "GET", "/", token=False, host="127.0.0.1:1")[0] == 403  # another port: another origin


# --- 6. participant codes ---------------------------------------------------------------------

def test_6_a_participant_code_with_a_newline_is_refused(server):
    srv, s = server
    status, reply = request(srv, "POST", "/api/answer", body=an_answer(s, who="p1\n"))
    assert status == 400 and "participant code" in reply["error"]
    assert request(srv, "GET", "/api/progress?participant=p1%0A")[0] == 400
    assert srv.store.answers(s["set_id"]) == {}


# --- 7. one server per database; nothing acknowledged that is not committed --------------------

def test_7_a_second_server_on_the_same_database_stops_with_one_line(tmp_path):
    s_args = serve_args(tmp_path, "coda21")
    srv = RunningServer(item_set(tmp_path, "coda21"), Path(s_args.db))
    try:
        proc = subprocess.run(
            [sys.executable, "-m", "lexprobe", "human", "serve", "--benchmark", "coda21", "--subset", "2",
             "--data", s_args.data, "--db", s_args.db, "--port", "0"],
            capture_output=True, text=True, timeout=60, cwd=REPO)
    finally:
        srv.stop()
    err = proc.stderr.strip()
    assert proc.returncode == 2 and err.count("\n") == 0, err
    assert "another `lexprobe human serve`" in err and "--db" in err


def test_7_an_answer_that_cannot_be_committed_is_not_acknowledged(tmp_path, monkeypatch):
    import lexprobe.human.store as store_module

    monkeypatch.setattr(store_module, "BUSY_TIMEOUT_S", 0.2, raising=False)
    s = item_set(tmp_path, "coda21", subset=2)
    db = tmp_path / "answers.sqlite"
    srv = RunningServer(s, db)
    try:
        other = sqlite3.connect(db, isolation_level=None)
        other.execute("BEGIN IMMEDIATE")  # another writer holds the database
        status, reply = request(srv, "POST", "/api/answer", body=an_answer(s))
        assert status == 503 and "not saved" in reply["error"]
        other.execute("ROLLBACK")
        other.close()
        assert srv.store.answers(s["set_id"]) == {}
        status, reply = request(srv, "POST", "/api/answer", body=an_answer(s))  # the page's retry
        assert status == 200
        check = sqlite3.connect(db)
        assert check.execute("SELECT COUNT(*) FROM answers").fetchone() == (1,)  # committed before the 200
        check.close()
    finally:
        srv.stop()


# --- 8. bodies that never arrive or nest too deep ---------------------------------------------

def test_8_a_body_shorter_than_its_length_times_out(tmp_path, monkeypatch):
    import lexprobe.human.server as server_module

    monkeypatch.setattr(server_module, "READ_TIMEOUT_S", 1.0, raising=False)
    s = item_set(tmp_path, "coda21", subset=2)
    srv = RunningServer(s, tmp_path / "answers.sqlite")
    try:
        sock = socket.create_connection(("127.0.0.1", srv.port), timeout=30)
        sock.sendall((f"POST /api/answer HTTP/1.1\r\nHost: 127.0.0.1:{srv.port}\r\n"
                      f"X-Lexprobe-Token: {srv.app.token}\r\nContent-Type: application/json\r\n"
                      "Content-Length: 1000\r\n\r\n{\"participant\"").encode())
        started = time.monotonic()
        reply = sock.recv(4096).decode(errors="replace")
        sock.close()
        assert time.monotonic() - started < 20
        assert reply.startswith("HTTP/1.0 408") or reply.startswith("HTTP/1.1 408"), reply[:80]
    finally:
        srv.stop()


def test_8_deeply_nested_json_is_a_400(server):
    srv, s = server
    status, reply = request(srv, "POST", "/api/answer", body=b"[" * 30000 + b"]" * 30000,
                            headers={"Content-Type": "application/json"})
    assert status == 400 and "nested too deeply" in reply["error"]
    assert request(srv, "GET", "/api/items")[0] == 200  # the server is still up


# --- 9 and 17. foreign and tampered databases -------------------------------------------------

def _foreign(path: Path) -> bytes:
    con = sqlite3.connect(path)
    con.execute("CREATE TABLE prepdefs (prep TEXT, sense TEXT, def TEXT)")
    con.execute("INSERT INTO prepdefs VALUES ('on', '1', 'a definition')")
    con.commit()
    con.close()
    return path.read_bytes()


def test_9_score_refuses_a_foreign_database_and_leaves_it_as_it_was(tmp_path, capsys):
    db = tmp_path / "other.sqlite"
    before = _foreign(db)
    assert main(["human", "score", "--db", str(db), "--out", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "not a lexprobe answer database" in err
    assert db.read_bytes() == before and not Path(str(db) + "-wal").exists()
    con = sqlite3.connect(db)
    assert con.execute("PRAGMA journal_mode").fetchone() == ("delete",)
    con.close()


def test_9_serve_refuses_a_foreign_database_too(tmp_path):
    args = serve_args(tmp_path, "coda21")
    before = _foreign(Path(args.db))
    proc = subprocess.run(  # a child: the code before #19 served (forever) on the foreign file
        [sys.executable, "-m", "lexprobe", "human", "serve", "--benchmark", "coda21", "--subset", "2",
         "--data", args.data, "--db", args.db, "--port", "0"], capture_output=True, text=True, timeout=60, cwd=REPO)
    assert proc.returncode == 2 and "not a lexprobe answer database" in proc.stderr
    assert Path(args.db).read_bytes() == before


def _scored_db(tmp_path, benchmark="wdlmpro"):
    s = item_set(tmp_path, benchmark)
    db = tmp_path / "answers.sqlite"
    srv = RunningServer(s, db)
    item = s["items"][0]
    srv.store.save_answer(s["set_id"], "ann", item["id"], item["answer"])
    srv.stop()
    return s, db, item


def test_17_score_out_that_is_a_file_is_one_line(tmp_path, capsys):
    s, db, _ = _scored_db(tmp_path)
    out = tmp_path / "results.json"
    out.write_text("{}")
    assert main(["human", "score", "--db", str(db), "--out", str(out)]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "--out" in err and out.read_text() == "{}"


def _edit_gold(con):
    (body,) = con.execute("SELECT body FROM item_sets").fetchone()
    obj = json.loads(body)
    first = obj["items"][0]
    first["answer"] = next(o["label"] for o in first["options"] if o["label"] != first["answer"])
    con.execute("UPDATE item_sets SET body = ?", (json.dumps(obj),))


@pytest.mark.parametrize("tamper,why", [
    (_edit_gold, "no longer match"),
    ("UPDATE item_sets SET body = 'not json'", "not valid JSON"),
    ("UPDATE answers SET answer = '\"zz\"'", "not one the page could send"),
    ("UPDATE answers SET participant = '../../escaped'", "participant code"),
    ("UPDATE answers SET item_id = 'w2d/999'", "not in set"),
])
def test_17_a_tampered_database_is_one_line_and_writes_nothing(tmp_path, capsys, tamper, why):
    s, db, item = _scored_db(tmp_path)
    con = sqlite3.connect(db)
    tamper(con) if callable(tamper) else con.execute(tamper)
    con.commit()
    con.close()
    out = tmp_path / "scores"
    assert main(["human", "score", "--db", str(db), "--out", str(out)]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and why in err and "changed outside lexprobe" in err
    assert not list(tmp_path.rglob("*.json")), "nothing may be written from a tampered database"


# --- 16 and 25. options of `human serve` ----------------------------------------------------------

@pytest.mark.parametrize("port", ["99999", "-1"])
def test_16_bad_ports_are_one_line(tmp_path, capsys, port):
    args = serve_args(tmp_path, "coda21")
    with pytest.raises(SystemExit) as stop:
        main(["human", "serve", "--benchmark", "coda21", "--data", args.data, "--db", args.db, "--port", port])
    assert stop.value.code == 2
    assert "--port" in capsys.readouterr().err


def test_16_an_impossible_host_names_the_host(tmp_path, capsys):
    args = serve_args(tmp_path, "coda21")
    argv = ["human", "serve", "--benchmark", "coda21", "--subset", "2", "--data", args.data, "--db", args.db,
            "--host", "999.1.1.1", "--port", "0"]
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "--host 999.1.1.1" in err and "--port" not in err


def test_25_a_public_host_warns_that_answers_are_reachable(tmp_path, capsys):
    from lexprobe.human.server import HumanApp, make_server
    from lexprobe.human.store import AnswerStore

    store = AnswerStore(tmp_path / "a.sqlite")
    app = HumanApp(item_set(tmp_path, "coda21", subset=2), store)
    server = make_server(app, "0.0.0.0", 0)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        assert "reachable from the network" in capsys.readouterr().err
        port = server.server_address[1]

        class Srv:  # what `request` needs
            pass

        srv = Srv()
        srv.port, srv.app = port, app
        assert request(srv, "GET", "/api/items")[0] == 200  # an IP literal of this machine is its own name
        assert request(srv, "GET", "/api/items", host=f"attacker.example:{port}")[0] == 403
    finally:
        server.shutdown()
        server.server_close()
        store.close()
    local = AnswerStore(tmp_path / "b.sqlite")
    make_server(HumanApp(item_set(tmp_path, "coda21", subset=2), local), "127.0.0.1", 0).server_close()
    local.close()
    assert "reachable" not in capsys.readouterr().err
