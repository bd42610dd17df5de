"""Issue #19, items 1 (pins on read), 3, 10, 11, 13 (data directory), 16 (timeout) and 24.

A local HTTP server plays the mirror (``LEXPROBE_DATA_MIRROR``); it can answer with an
HTML page, trickle a byte at a time, or hold each answer back so that two fetches
overlap. Every test reproduces a failure of the code before the fix.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
import threading
import time
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from lexprobe.cli import main
from lexprobe.data import download, registry, store
from lexprobe.data.registry import DATASETS
from lexprobe.errors import DataError
from tests.robustness.disk import full_folder

REPO = Path(__file__).resolve().parents[2]
HTML = b"<!doctype html><html><head><title>Mirror</title></head><body>Not the file you wanted</body></html>\n"


def served_path(name: str) -> str:
    parts = urlsplit(DATASETS[name].files[0].url)
    return f"/{parts.netloc}{parts.path}"


class Mirror(SimpleHTTPRequestHandler):
    """Serves the mirror folder; ``delay`` holds every body back, ``trickle`` sends one byte per step."""

    delay = 0.0
    trickle: float | None = None
    stop = threading.Event()
    log: list = []

    def log_message(self, *args):
        pass

    def do_GET(self):
        Mirror.log.append(self.path)
        path = Path(self.translate_path(self.path))
        if not path.is_file():
            self.send_error(404)
            return
        data = path.read_bytes()
        self.send_response(200)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        time.sleep(self.delay)
        if self.trickle is None:
            self.wfile.write(data)
            return
        for i in range(len(data)):
            if Mirror.stop.is_set():
                return
            self.wfile.write(data[i:i + 1])
            self.wfile.flush()
            time.sleep(self.trickle)


@pytest.fixture()
def mirror(shared_data, tmp_path, monkeypatch):
    root = tmp_path / "mirror"
    for name, content in (("coda21-clean-hard", (shared_data / "coda21" / "CoDA-clean-hard.json").read_bytes()),
                          ("coda21-noisy-easy", HTML)):
        dest = root / served_path(name).lstrip("/")
        dest.parent.mkdir(parents=True, exist_ok=True)
        dest.write_bytes(content)
    Mirror.delay, Mirror.trickle, Mirror.log = 0.0, None, []
    Mirror.stop.clear()
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), partial(Mirror, directory=str(root)))
    httpd.daemon_threads = True
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{httpd.server_address[1]}"
    monkeypatch.setenv("LEXPROBE_DATA_MIRROR", url)
    download._unreachable.clear()
    yield root
    Mirror.stop.set()
    httpd.shutdown()
    httpd.server_close()


def one_line(capsys) -> str:
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0, err
    return err


# --- 3. nothing is pinned before it passed the reader's check ---------------------------------

def test_3_an_html_page_is_not_pinned_as_coda21(mirror, capsys):
    assert main(["data", "fetch", "coda21-noisy-easy", "--no-progress"]) == 2
    err = one_line(capsys)
    assert "not a CoDA21 JSON file" in err
    root = registry.data_dir()
    assert not (root / "coda21" / "CoDA-noisy-easy.json").exists()
    assert store.read_state("coda21-noisy-easy") == {}
    assert [p.name for p in root.rglob("*") if p.name.endswith((".part", ".lock"))] == []
    assert main(["data", "list", "--json"]) == 0
    listed = {d["name"]: d for d in json.loads(capsys.readouterr().out)["datasets"]}
    assert not listed["coda21-noisy-easy"]["present"] and not listed["coda21-noisy-easy"]["verified"]


def test_3_a_wrong_file_is_not_pinned_by_verify_either(shared_data, capsys):
    root = registry.data_dir()
    target = root / "coda21" / "CoDA-noisy-easy.json"
    target.parent.mkdir(parents=True)
    target.write_bytes(HTML)  # copied in by hand
    assert main(["data", "verify", "coda21-noisy-easy"]) == 2
    assert "is not pinned" in capsys.readouterr().err
    assert not (store.read_state("coda21-noisy-easy").get("files") or {})
    # valid CoDA21 JSON, but not the release: the published group counts (1188 / 370) tell
    shutil.copyfile(shared_data / "coda21" / "CoDA-clean-hard.json", target)
    assert main(["data", "verify", "coda21-noisy-easy"]) == 2
    assert "106 noun and 102 verb groups" in capsys.readouterr().err
    assert not (store.read_state("coda21-noisy-easy").get("files") or {})
    assert main(["data", "import", "coda21-noisy-easy", str(shared_data / "coda21" / "CoDA-clean-hard.json")]) == 2
    assert "1188 and 370" in one_line(capsys)


# --- 1. a dataset is checked against its pin when a command reads it -------------------------------

@pytest.fixture()
def clean_easy(shared_data):
    assert main(["data", "import", "coda21-clean-easy", str(shared_data / "coda21" / "CoDA-clean-easy.json")]) == 0
    return registry.data_dir() / "coda21" / "CoDA-clean-easy.json"


def test_1_a_changed_dataset_is_refused_when_read(clean_easy, tmp_path, capsys):
    obj = json.loads(clean_easy.read_text())
    obj["n"] = obj["n"][:3]  # what `coda sample-human --out <official file> --size 3` did
    clean_easy.write_text(json.dumps(obj))
    capsys.readouterr()
    assert main(["coda", "stats", str(clean_easy)]) == 2
    err = one_line(capsys)
    assert "changed since it was fetched or verified" in err
    assert "lexprobe data fetch coda21-clean-easy --force" in err and "lexprobe data import coda21-clean-easy" in err
    argv = ["coda", "eval", "--data", "clean-easy", "--model", "random", "--out", str(tmp_path / "r.json")]
    assert main(argv) == 2 and "changed since" in one_line(capsys)
    assert not (tmp_path / "r.json").exists()
    assert main(["data", "list"]) == 0
    assert "changed since verified" in capsys.readouterr().out


def test_1_a_touched_but_equal_dataset_is_read_and_restamped(clean_easy, capsys):
    before = store.read_state("coda21-clean-easy")["stamps"]["coda21/CoDA-clean-easy.json"]
    os.utime(clean_easy, ns=(1, 1))  # new stamps, same bytes: hashed once, then stamped again
    capsys.readouterr()
    assert main(["coda", "stats", str(clean_easy)]) == 0
    after = store.read_state("coda21-clean-easy")["stamps"]["coda21/CoDA-clean-easy.json"]
    assert after != before and after == store.stamp(clean_easy)


def test_1_import_refuses_the_data_directory_s_own_copy(clean_easy, capsys):
    capsys.readouterr()
    assert main(["data", "import", "coda21-clean-easy", str(clean_easy)]) == 2
    assert "own copy" in one_line(capsys)


# --- 10. a trickling server is interrupted, and what arrived is kept --------------------------------

def test_10_a_trickle_is_interrupted_and_the_part_file_grows(mirror, monkeypatch):
    monkeypatch.setenv("LEXPROBE_DATA_TIMEOUT", "1")
    Mirror.trickle = 0.05  # 20 bytes/s, far below the minimum rate
    errors = []

    def fetch():
        try:
            store.fetch("coda21-clean-hard", progress=False, say=lambda line: None)
        except DataError as err:
            errors.append(str(err))

    worker = threading.Thread(target=fetch, daemon=True)
    started = time.monotonic()
    worker.start()
    worker.join(timeout=30)
    assert not worker.is_alive(), "a trickling server held the download for 30 s"
    assert time.monotonic() - started < 30
    assert errors and "slower than" in errors[0] and "rerun" in errors[0] and "\n" not in errors[0]
    part = registry.data_dir() / (DATASETS["coda21-clean-hard"].files[0].relpath + ".part")
    assert part.stat().st_size > 0  # written as it arrived: a rerun resumes from here


# --- 16. LEXPROBE_DATA_TIMEOUT ---------------------------------------------------------------

@pytest.mark.parametrize("value", ["-1", "nan", "inf", "0"])
def test_16_a_meaningless_timeout_is_one_line(monkeypatch, capsys, value):
    monkeypatch.setenv("LEXPROBE_DATA_MIRROR", "http://127.0.0.1:9")
    monkeypatch.setenv("LEXPROBE_DATA_TIMEOUT", value)
    download._unreachable.clear()
    assert main(["data", "fetch", "ontonotes-nota", "--no-progress"]) == 2
    err = one_line(capsys)
    assert "LEXPROBE_DATA_TIMEOUT" in err and "positive" in err


# --- 11. FIFOs and devices are not data files ---------------------------------------------------

def _run(*argv, timeout=60):
    """``lexprobe argv`` in a child with 2 GiB of address space: /dev/zero must not eat the machine."""
    import resource

    def limit():
        resource.setrlimit(resource.RLIMIT_AS, (2 << 30, 2 << 30))

    env = {**os.environ, "PYTHONPATH": str(REPO)}
    return subprocess.run([sys.executable, "-m", "lexprobe", *argv], capture_output=True, text=True,
                          timeout=timeout, preexec_fn=limit, env=env, cwd=REPO)


def test_11_a_fifo_or_dev_zero_is_refused_in_one_line(tmp_path):
    fifo = tmp_path / "CoDA-clean-hard.json"
    os.mkfifo(fifo)
    for argv in (["coda", "stats", str(fifo)], ["coda", "stats", "/dev/zero"],
                 ["data", "import", "coda21-clean-hard", str(fifo)], ["data", "import", "semcor", "/dev/zero"]):
        proc = _run(*argv)
        err = proc.stderr.strip()
        assert proc.returncode == 2 and err.count("\n") == 0, (argv, err[-300:])
        assert "not a regular file" in err, err


# --- 13. a full data directory ------------------------------------------------------------------

def test_13_fetch_into_a_full_data_directory_leaves_no_part_file(mirror, tmp_path, monkeypatch, capsys):
    with full_folder(tmp_path / "small-disk", free=200_000) as root:  # clean-hard is 584 kB
        monkeypatch.setenv("LEXPROBE_DATA", str(root))
        assert main(["data", "fetch", "coda21-clean-hard", "--no-progress"]) == 2
        err = one_line(capsys)
        assert "no space left on the device" in err and "removed" in err
        assert [p.name for p in root.rglob("*") if p.is_file() and p.name != "filler"] == []
        assert store.read_state("coda21-clean-hard") == {}


def test_13_import_into_a_full_data_directory_leaves_it_as_it_was(shared_data, tmp_path, monkeypatch, capsys):
    with full_folder(tmp_path / "small-disk", free=200_000) as root:
        monkeypatch.setenv("LEXPROBE_DATA", str(root))
        assert main(["data", "import", "coda21-clean-hard", str(shared_data / "coda21" / "CoDA-clean-hard.json")]) == 2
        err = one_line(capsys)
        assert "no space left on the device" in err and "as it was" in err
        assert [p.name for p in root.rglob("*") if p.is_file() and p.name != "filler"] == []


# --- 24. two fetches of one dataset download it once ----------------------------------------------

def test_24_two_concurrent_fetches_download_once(mirror, tmp_path):
    Mirror.delay = 2.0  # the first download is still running when the second starts
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    procs = [subprocess.Popen([sys.executable, "-m", "lexprobe", "data", "fetch", "coda21-clean-hard", "--no-progress"],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, cwd=REPO)]
    time.sleep(0.5)
    procs.append(subprocess.Popen([sys.executable, "-m", "lexprobe", "data", "fetch", "coda21-clean-hard",
                                   "--no-progress"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                  env=env, cwd=REPO))
    outs = [p.communicate(timeout=120) for p in procs]
    assert [p.returncode for p in procs] == [0, 0], outs
    assert Mirror.log.count(served_path("coda21-clean-hard")) == 1, Mirror.log
    target = registry.data_dir() / DATASETS["coda21-clean-hard"].files[0].relpath
    assert hashlib.sha256(target.read_bytes()).hexdigest() == DATASETS["coda21-clean-hard"].files[0].sha256
