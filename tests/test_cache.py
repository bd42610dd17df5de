import json
import subprocess
import sys
import time

import pytest

from lexprobe.errors import OutputBusyError
from lexprobe.cache import ResumeLog, partial_path, resume_key, stable_hash


def test_stable_hash_ignores_key_order():
    assert stable_hash({"a": 1, "b": [1, 2]}) == stable_hash({"b": [1, 2], "a": 1})
    assert stable_hash({"a": 1}) != stable_hash({"a": 2})


def test_resume_log_round_trip(tmp_path):
    with ResumeLog(tmp_path / "r.partial.jsonl", {"model": "x"}) as log:
        assert log.load() == {}
        log.append("0:10", [{"rank": 1}])
        log.append("10:20", [{"rank": 2}])
    with ResumeLog(tmp_path / "r.partial.jsonl", {"model": "x"}) as again:
        assert again.load() == {"0:10": [{"rank": 1}], "10:20": [{"rank": 2}]}
    assert not (tmp_path / "r.partial.jsonl.lock").exists()  # released locks leave nothing behind


def test_truncated_last_line_is_ignored_and_cut(tmp_path):
    path = tmp_path / "r.partial.jsonl"
    with ResumeLog(path, {"m": 1}) as log:
        log.append("a", 1)
    with path.open("a") as f:
        f.write('{"id": "b", "rec')  # interrupted mid-write (kill -9)
    with ResumeLog(path, {"m": 1}) as log:
        assert log.load() == {"a": 1}
        log.append("c", 3)  # starts on a clean line
    with ResumeLog(path, {"m": 1}) as log:
        assert log.load() == {"a": 1, "c": 3}


def test_other_configuration_is_set_aside_with_a_notice(tmp_path):
    path = tmp_path / "r.partial.jsonl"
    with ResumeLog(path, resume_key(["x"], "sha256:1", "paper", {"k": 1})) as log:
        log.append("a", 1)
    notices = []
    with ResumeLog(path, resume_key(["x", "y"], "sha256:1", "paper", {"k": 1}), notice=notices.append) as log:
        assert log.load() == {}
    assert not path.exists()
    stale = path.with_name(path.name + ".stale")
    assert json.loads(stale.read_text().splitlines()[1])["id"] == "a"
    assert len(notices) == 1 and "different items" in notices[0] and "r.partial.jsonl.stale" in notices[0]


def test_key_covers_items_model_protocol_and_options():
    base = resume_key([{"w": "a"}], "sha256:1", "paper", {"pattern": "x"})
    assert base == resume_key([{"w": "a"}], "sha256:1", "paper", {"pattern": "x"})
    for other in (resume_key([{"w": "b"}], "sha256:1", "paper", {"pattern": "x"}),
                  resume_key([{"w": "a"}], "sha256:2", "paper", {"pattern": "x"}),
                  resume_key([{"w": "a"}], "sha256:1", "authors", {"pattern": "x"}),
                  resume_key([{"w": "a"}], "sha256:1", "paper", {"pattern": "y"})):
        assert stable_hash(other) != stable_hash(base)


def test_second_writer_on_the_same_log_is_refused(tmp_path):
    """Item 8: two runs on one --out. A second process holding the lock makes us stop at once."""
    path = tmp_path / "r.json.partial.jsonl"
    holder = subprocess.Popen(
        [sys.executable, "-c",
         "import sys, time; from lexprobe.cache import ResumeLog; "
         f"log = ResumeLog({str(path)!r}, {{'m': 1}}); log.load(); print('locked', flush=True); time.sleep(30)"],
        stdout=subprocess.PIPE, text=True,
    )
    try:
        assert holder.stdout.readline().strip() == "locked"
        with pytest.raises(OutputBusyError, match="another lexprobe run is writing"):
            ResumeLog(path, {"m": 1}).load()
    finally:
        holder.kill()
        holder.wait()
    time.sleep(0.05)
    with ResumeLog(path, {"m": 1}) as log:  # the lock died with its holder
        assert log.load() == {}


def test_finish_removes_log_and_lock(tmp_path):
    path = tmp_path / "r.partial.jsonl"
    log = ResumeLog(path, {"m": 1})
    log.append("a", 1)
    log.finish()
    assert list(tmp_path.iterdir()) == []


def test_partial_path_sits_next_to_output(tmp_path):
    assert partial_path(tmp_path / "out.json") == tmp_path / "out.json.partial.jsonl"
    assert partial_path(tmp_path / "out.json", "embeddings") == tmp_path / "out.json.embeddings.partial.jsonl"


def test_scorer_options_include_dtype():
    from types import SimpleNamespace

    from lexprobe.cache import scorer_options

    def scorer(dtype):
        return SimpleNamespace(describe=lambda: {"name": "m", "kind": "causal"}, model=SimpleNamespace(dtype=dtype))

    assert scorer_options(scorer("torch.float32")) != scorer_options(scorer("torch.bfloat16"))
    assert scorer_options(scorer("torch.float32"))["name"] == "m"
