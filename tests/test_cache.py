import json

from lexprobe.cache import ResumeLog, partial_path, stable_hash


def test_stable_hash_ignores_key_order():
    assert stable_hash({"a": 1, "b": [1, 2]}) == stable_hash({"b": [1, 2], "a": 1})
    assert stable_hash({"a": 1}) != stable_hash({"a": 2})


def test_resume_log_round_trip(tmp_path):
    log = ResumeLog(tmp_path / "r.partial.jsonl", {"model": "x"})
    assert log.load() == {}
    log.append("0:10", [{"rank": 1}])
    log.append("10:20", [{"rank": 2}])
    again = ResumeLog(tmp_path / "r.partial.jsonl", {"model": "x"})
    assert again.load() == {"0:10": [{"rank": 1}], "10:20": [{"rank": 2}]}


def test_truncated_last_line_is_ignored(tmp_path):
    path = tmp_path / "r.partial.jsonl"
    log = ResumeLog(path, {"m": 1})
    log.append("a", 1)
    with path.open("a") as f:
        f.write('{"id": "b", "rec')  # interrupted mid-write
    assert ResumeLog(path, {"m": 1}).load() == {"a": 1}


def test_other_configuration_is_set_aside(tmp_path):
    path = tmp_path / "r.partial.jsonl"
    ResumeLog(path, {"m": 1}).append("a", 1)
    assert ResumeLog(path, {"m": 2}).load() == {}
    assert not path.exists()
    stale = path.with_suffix(path.suffix + ".stale")
    assert json.loads(stale.read_text().splitlines()[1])["id"] == "a"


def test_partial_path_sits_next_to_output(tmp_path):
    assert partial_path(tmp_path / "out.json") == tmp_path / "out.json.partial.jsonl"
