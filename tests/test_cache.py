import json
import subprocess
import sys
import time

import pytest

from lexprobe.cache import ResumeLog, partial_path, resume_key, stable_hash
from lexprobe.errors import OutputBusyError


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


# --- #33 D13: every line carries its job's key; a line of another job or a second, different record is refused --

def _lines(path):
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_every_unit_line_carries_the_key_digest_of_its_job(tmp_path):
    path = tmp_path / "r.partial.jsonl"
    with ResumeLog(path, {"m": 1}) as log:
        log.append("a", 1)
    header, line = _lines(path)
    assert header["format"] == "lexprobe-resume/3"
    assert line == {"id": "a", "key": header["key_hash"][:16], "record": 1}


def test_a_line_of_another_jobs_log_is_refused_and_its_unit_computed_again(tmp_path):
    """The issue's repro in small: a unit line of another job's log (another recipe) appended to this one."""
    paper, authors = tmp_path / "paper.partial.jsonl", tmp_path / "authors.partial.jsonl"
    with ResumeLog(paper, resume_key(["x"], "sha256:1", "likelihood/paper")) as log:
        log.append("a", {"rank": 1})
    with ResumeLog(authors, resume_key(["x"], "sha256:1", "likelihood/authors")) as log:
        log.append("b", {"rank": 5})
        log.append("a", {"rank": 7})
    with paper.open("a") as f:
        f.write("".join(authors.read_text().splitlines(keepends=True)[1:]))  # both of its unit lines
    notices = []
    with ResumeLog(paper, resume_key(["x"], "sha256:1", "likelihood/paper"), notice=notices.append) as log:
        assert log.load() == {"a": {"rank": 1}}  # not "b", and "a" keeps its own record
    assert len(notices) == 1 and "2 invalid line(s)" in notices[0] and "another job" in notices[0]
    assert [line["id"] for line in _lines(paper)[1:]] == ["a"]  # dropped from the log: said once, not on every resume
    with ResumeLog(paper, resume_key(["x"], "sha256:1", "likelihood/paper"), notice=notices.append) as log:
        assert log.load() == {"a": {"rank": 1}}
    assert len(notices) == 1


def test_a_line_without_a_key_is_refused_in_a_keyed_log(tmp_path):
    path = tmp_path / "r.partial.jsonl"
    with ResumeLog(path, {"m": 1}) as log:
        log.append("a", 1)
    with path.open("a") as f:
        f.write(json.dumps({"id": "b", "record": 2}) + "\n")
    notices = []
    with ResumeLog(path, {"m": 1}, notice=notices.append) as log:
        assert log.load() == {"a": 1}
    assert "no job key" in notices[0]


def test_a_unit_logged_twice_with_different_records_is_computed_again(tmp_path):
    path = tmp_path / "r.partial.jsonl"
    with ResumeLog(path, {"m": 1}) as log:
        log.append("a", {"rank": 1})
        log.append("b", {"rank": 2})
        log.append("a", {"rank": 3})  # an edited log: which one is true cannot be known
        log.append("b", {"rank": 2})  # the same record twice is harmless
    notices = []
    with ResumeLog(path, {"m": 1}, notice=notices.append) as log:
        assert log.load() == {"b": {"rank": 2}}
        log.append("a", {"rank": 1})  # computed again
    assert len(notices) == 1 and "logged twice with different records" in notices[0] and "'a'" in notices[0]
    with ResumeLog(path, {"m": 1}, notice=notices.append) as log:
        assert log.load() == {"b": {"rank": 2}, "a": {"rank": 1}}  # the recomputed record alone
    assert len(notices) == 1


def test_a_nan_record_logged_twice_is_one_record(tmp_path):
    path = tmp_path / "r.partial.jsonl"
    with ResumeLog(path, {"m": 1}) as log:
        log.append("a", [float("nan")])
        log.append("a", [float("nan")])
    notices = []
    with ResumeLog(path, {"m": 1}, notice=notices.append) as log:
        assert list(log.load()) == ["a"]
    assert notices == []


def test_two_rank_logs_with_different_records_of_a_unit_drop_it_from_both(tmp_path):
    from lexprobe.distributed import _load_done

    base = tmp_path / "r.json.partial.jsonl"
    key = {"m": 1}
    with ResumeLog(base.with_name(base.name + ".rank0"), key) as log:
        log.append("a", 1)
        log.append("b", 2)
    with ResumeLog(base.with_name(base.name + ".rank1"), key) as log:
        log.append("a", 9)
        log.append("c", 3)
    notices = []
    own = ResumeLog(base, key, notice=notices.append)
    with own:
        assert _load_done(base, key, own) == {"b": 2, "c": 3}
    assert len(notices) == 1 and "different records in two logs" in notices[0]
    for rank in (0, 1):
        assert "a" not in [line["id"] for line in _lines(base.with_name(f"{base.name}.rank{rank}"))[1:]]


def test_a_log_of_the_earlier_format_is_still_resumed(tmp_path):
    """Logs written before lines carried keys (``lexprobe-resume/2``): their lines are taken on the header's word;
    lines appended now carry the key, and a line of another job is refused there too."""
    path = tmp_path / "r.partial.jsonl"
    key = {"m": 1}
    log = ResumeLog(path, key)
    path.write_text(json.dumps({"format": "lexprobe-resume/2", "key_hash": log.key_hash, "key": key}) + "\n"
                    + json.dumps({"id": "a", "record": 1}) + "\n"
                    + json.dumps({"id": "x", "key": "0" * 16, "record": 5}) + "\n")
    notices = []
    with ResumeLog(path, key, notice=notices.append) as log:
        assert log.load() == {"a": 1}
        log.append("b", 2)
    assert len(notices) == 1 and "another job" in notices[0]
    with ResumeLog(path, key) as log:
        assert log.load() == {"a": 1, "b": 2}


# --- #33 item 9: one lock; a released lock is never held twice -------------------------------------------

_LOCKER = """
import json, os, sys, time
from pathlib import Path
from lexprobe.cache import ResumeLog
from lexprobe.errors import OutputBusyError

path, marker, seconds = Path(sys.argv[1]), Path(sys.argv[2]), float(sys.argv[3])
held = overlaps = 0
end = time.monotonic() + seconds
while time.monotonic() < end:
    log = ResumeLog(path, {"m": 1})
    try:
        log.acquire()
    except OutputBusyError:
        continue
    try:
        fd = os.open(marker, os.O_CREAT | os.O_EXCL | os.O_WRONLY)  # only the one holder may make it
    except FileExistsError:
        overlaps += 1
    else:
        held += 1
        os.close(fd)
        os.unlink(marker)
    log.close()
print(json.dumps({"held": held, "overlaps": overlaps}))
"""


def test_two_processes_never_hold_one_resume_log_lock_at_once(tmp_path):
    """Processes that take and release one log's lock as fast as they can: never two holders at once. Before #33,
    ``ResumeLog.close`` unlinked the lock file while another process could have it open, and that process then
    locked the unlinked file while a third locked a new one (both "held" it); the one lock (``locks.take_lock``,
    ``filelock``) re-checks that the file it locked is still the one in place."""
    path, marker = tmp_path / "r.partial.jsonl", tmp_path / "holder"
    procs = [subprocess.Popen([sys.executable, "-c", _LOCKER, str(path), str(marker), "4"], stdout=subprocess.PIPE,
                              text=True) for _ in range(3)]
    counts = [json.loads(p.communicate(timeout=120)[0]) for p in procs]
    assert all(p.returncode == 0 for p in procs)
    assert sum(c["overlaps"] for c in counts) == 0, counts
    assert sum(c["held"] for c in counts) > 100 and all(c["held"] for c in counts), counts  # they did contend


def test_one_lock_implementation():
    """Results, resume logs, embedding stores, downloads, dataset fetches and the human answer store all lock
    through ``locks.take_lock``: no other module calls ``flock``/``lockf`` or makes a ``FileLock`` (there were
    three implementations with different rules before #33)."""
    from pathlib import Path

    package = Path(__file__).resolve().parents[1] / "lexprobe"
    offenders = [str(p.relative_to(package.parent)) for p in sorted(package.rglob("*.py"))
                 if p.name != "locks.py" and any(word in p.read_text(encoding="utf-8")
                                                 for word in ("fcntl", "flock", "lockf", "FileLock"))]
    assert not offenders, offenders
    assert "FileLock" in (package / "locks.py").read_text(encoding="utf-8")


# --- cached_json: the one read-check-else-compute-and-store of every cache file --------------------------------

def test_cached_json_computes_once_then_reads_the_stored_value(tmp_path):
    from typing import TypedDict

    from lexprobe.cache import cached_json

    class Entry(TypedDict):
        format: str
        n: int

    path, calls = tmp_path / "c" / "entry.json", []

    def compute() -> dict:
        calls.append(1)
        return {"n": 3}

    def stored(value: dict) -> dict:
        return {"format": "x/1", **value}

    assert cached_json(path, Entry, compute, inputs="i", stored=stored) == {"n": 3}
    assert json.loads(path.read_bytes().split(b"\n", 1)[1]) == {"format": "x/1", "n": 3}
    assert cached_json(path, Entry, compute, inputs="i", stored=stored) == {"format": "x/1", "n": 3} and len(calls) == 1
    assert cached_json(path, Entry, compute, inputs="i", read=lambda data: data["n"] * 2) == 6 and len(calls) == 1


@pytest.mark.parametrize("content", [b"garbage", b'{"format": "x/1", "n": "3"}', b'{"format": "x/1"}',
                                     b"[" * 100000 + b"]" * 100000])
def test_cached_json_recomputes_and_replaces_an_unusable_file(tmp_path, content):
    """Damaged JSON, a value of another type, a missing field, too deep a nesting: computed again and replaced."""
    from typing import TypedDict

    from lexprobe.cache import cached_json

    class Entry(TypedDict):
        format: str
        n: int

    from lexprobe.cache import cache_entry

    path = tmp_path / "entry.json"
    for raw in (content, cache_entry(json.loads(content), "i") if content.startswith(b"{") else None):
        if raw is None:
            continue
        path.write_bytes(raw)
        assert cached_json(path, Entry, lambda: {"format": "x/1", "n": 4}, inputs="i") == {"format": "x/1", "n": 4}
        assert path.read_bytes() == cache_entry({"format": "x/1", "n": 4}, "i")


def test_cached_json_recomputes_what_its_reader_refuses(tmp_path):
    from typing import Any

    from lexprobe.cache import cached_json
    from lexprobe.errors import DataError

    path = tmp_path / "entry.json"
    path.write_text('{"n": 1}')
    assert cached_json(path, Any, lambda: [5], inputs="i", read=lambda data: None) == [5]  # None: unusable

    def refuse(data):
        raise DataError("not a cache")

    assert cached_json(path, Any, lambda: [6], inputs="i", read=refuse) == [6]
    assert cached_json(path, Any, lambda: pytest.fail("read"), inputs="i", read=lambda data: data) == [6]


def test_cached_json_never_follows_a_link(tmp_path):
    from typing import Any

    from lexprobe.cache import cached_json

    target = tmp_path / "elsewhere.json"
    target.write_text("[1]")
    path = tmp_path / "entry.json"
    path.symlink_to(target)
    assert cached_json(path, Any, lambda: [2], inputs="i") == [2]
    assert target.read_text() == "[1]" and not path.is_symlink() and path.read_bytes().endswith(b"\n[2]")
