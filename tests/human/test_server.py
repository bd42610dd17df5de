import json
import urllib.error
import urllib.request

import pytest

from lexprobe.human.server import MAX_BODY
from tests.human.helpers import RunningServer, item_set


TOKEN = {"X-Lexprobe-Token": ""}  # the running server's page token (the page sends it with every API call)


@pytest.fixture
def server(tmp_path):
    s = item_set(tmp_path, "coda21", subset=2)
    srv = RunningServer(s, tmp_path / "answers.sqlite")
    TOKEN["X-Lexprobe-Token"] = srv.app.token
    yield srv, s
    srv.stop()


def dust(s):
    """The k = 3 item (dust, marble, feather)."""
    return next(it for it in s["items"] if "dust.n.01" in it["synsets"])


def call(url, body=None, raw=None, headers=None):
    data = raw if raw is not None else (json.dumps(body).encode() if body is not None else None)
    req = urllib.request.Request(url, data=data, headers={"Content-Type": "application/json", **TOKEN, **(headers or {})})
    try:
        with urllib.request.urlopen(req, timeout=10) as r:
            return r.status, json.loads(r.read())
    except urllib.error.HTTPError as err:
        return err.code, json.loads(err.read())


def test_items_never_carry_answers_and_answers_are_stored(server):
    srv, s = server
    status, body = call(srv.url + "api/items")
    assert status == 200 and body["set_id"] == s["set_id"]
    assert "answer" not in json.dumps(body) and "synset" not in json.dumps(body)
    item = dust(s)
    status, body = call(srv.url + "api/answer", {"participant": "p-1", "item": item["id"], "answer": item["answer"]})
    assert status == 200 and body["answered"] == {item["id"]: item["answer"]} and body["total"] == 2
    assert srv.store.answers(s["set_id"]) == {"p-1": {item["id"]: item["answer"]}}
    assert call(srv.url + "api/progress?participant=p-1")[1]["answered"] == {item["id"]: item["answer"]}


@pytest.mark.parametrize("body,status,message", [
    ({"participant": "p", "item": "n/99", "answer": ["A"]}, 404, "unknown item"),
    ({"participant": "p", "item": "DUST", "answer": ["A", "B"]}, 400, "each of the 3 contexts"),
    ({"participant": "p", "item": "DUST", "answer": ["A", "A", "B"]}, 400, "one-to-one"),
    ({"participant": "../etc/passwd", "item": "DUST", "answer": ["A", "B", "C"]}, 400, "participant code"),
    ({"participant": "p'; DROP TABLE answers;--", "item": "DUST", "answer": ["A", "B", "C"]}, 400, "participant code"),
    ({"participant": "p", "item": ["DUST"], "answer": ["A", "B", "C"]}, 404, "unknown item"),
    ([1, 2], 400, "JSON object"),
])
def test_bad_answers_are_refused_with_a_message(server, body, status, message):
    srv, s = server
    if isinstance(body, dict):  # DUST stands for the k = 3 item's id
        body = {k: (dust(s)["id"] if v == "DUST" else [dust(s)["id"]] if v == ["DUST"] else v) for k, v in body.items()}
    got, reply = call(srv.url + "api/answer", body)
    assert got == status and message in reply["error"]
    assert srv.store.answers(s["set_id"]) == {}


def test_malformed_and_oversized_bodies_are_refused(server):
    srv, s = server
    assert call(srv.url + "api/answer", raw=b"{not json") == (400, {"error": "body is not valid JSON"})
    status, reply = call(srv.url + "api/answer", raw=b"x" * (MAX_BODY + 1))
    assert status == 413 and "larger than" in reply["error"]
    assert call(srv.url + "api/progress?participant=")[0] == 400
    assert call(srv.url + "../../etc/passwd")[0] == 404
    assert srv.store.answers(s["set_id"]) == {}


def test_cli_errors_are_one_line(tmp_path, capsys):
    from lexprobe.cli import main

    assert main(["human", "score", "--db", str(tmp_path / "missing.sqlite")]) == 2
    assert "not found" in capsys.readouterr().err
    folder = tmp_path / "a-folder"
    folder.mkdir()
    assert main(["human", "serve", "--benchmark", "coda21", "--db", str(folder), "--data", str(tmp_path / "x.json")]) == 2
    err = capsys.readouterr().err.strip()
    # --db is a declared output: outputs.guard refuses the folder before the store opens (was the store's line)
    assert err.count("\n") == 0 and "--db" in err and "is a folder" in err, err
    empty = tmp_path / "empty.sqlite"
    from lexprobe.human.store import AnswerStore

    AnswerStore(empty).close()
    assert main(["human", "score", "--db", str(empty)]) == 2
    assert "no answers yet" in capsys.readouterr().err
    with pytest.raises(SystemExit) as exit_info:
        main(["human", "serve", "--benchmark", "wdlmpro", "--subset", "0"])
    assert exit_info.value.code == 2
