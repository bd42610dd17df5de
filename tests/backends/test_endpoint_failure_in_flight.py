"""A request that fails while others are in flight stops the run with its one line and nothing after it: the
others are cancelled and awaited to their end (asyncio once printed "Task was destroyed but it is pending!" and
a task dump after the error line), whether the failure is final (HTTP 401) or the deadline of a trickling
answer (--request-timeout)."""

from __future__ import annotations

import asyncio
import os
import re
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

import lexprobe
from lexprobe.errors import ModelError
from lexprobe.models import load_scorer
from tests.backends.fake_openai import send, write_raw

pytestmark = pytest.mark.usefixtures("quick_retries")


def _first_fails_others_hang(fake, how: str):
    """A ``raw`` hook: the first echo request fails (``how``: 401, or a trickle past the deadline), the others
    are held for seconds before their answer."""
    state = {"n": 0}
    lock = threading.Lock()

    def raw(handler, path, body):
        if path != "/v1/completions" or not body.get("echo"):
            return False
        with lock:
            state["n"] += 1
            first = state["n"] == 1
        if first and how == "401":
            return send(handler, 401, {"error": {"message": "invalid key"}})
        if first:  # a byte every half second: the whole answer never comes within the deadline
            handler.wfile.write(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n")
            for _ in range(40):
                try:
                    handler.wfile.write(b" ")
                    handler.wfile.flush()
                except OSError:
                    return True
                time.sleep(0.5)
            return write_raw(handler, b"")
        time.sleep(8)
        return False

    return raw


@pytest.mark.parametrize("how", ["401", "trickle"])
def test_a_failure_in_flight_leaves_no_task_pending(how, fake):
    remote = load_scorer(fake.url, batch_size=1, concurrency=4, request_timeout=2)
    fake.raw = _first_fails_others_hang(fake, how)
    pairs = [remote.split(c, x) for c, x in [("the dog", " runs"), ("a cat", " sat"), ("to run", " fast"),
                                            ("a red", " bird")]]
    with pytest.raises(ModelError):
        remote.token_logprobs(pairs)
    loop = remote.endpoint._loop

    async def pending() -> list:
        return [t for t in asyncio.all_tasks() if t is not asyncio.current_task() and not t.done()]

    assert asyncio.run_coroutine_threadsafe(pending(), loop).result(5) == []


@pytest.mark.parametrize("how", ["401", "trickle"])
def test_the_error_line_is_the_last_thing_printed(how, fake, wdlmpro_data, tmp_path):
    """The CLI in a process of its own (asyncio's dump comes when the process ends): nothing is printed after
    the error line (neither a task dump nor the progress bar redrawn when it is collected)."""
    fake.raw = _first_fails_others_hang(fake, how)
    env = {**os.environ, "PYTHONPATH": str(Path(lexprobe.__file__).parents[1]), "HF_HUB_OFFLINE": "1"}
    done = subprocess.run([sys.executable, "-m", "lexprobe", "wdlmpro", "eval", "--model", fake.url, "--data",
                           wdlmpro_data, "--batch-size", "1", "--concurrency", "4", "--request-timeout", "2",
                           "--out", str(tmp_path / "r.json")], capture_output=True, text=True, env=env, timeout=300)
    assert done.returncode == 2, done.stderr
    pieces = [p for p in re.split(r"[\r\n]", done.stderr) if p.strip()]  # a progress bar redraws after \r
    assert pieces[-1].startswith("lexprobe: error: ") and done.stderr.endswith("\n"), done.stderr
    assert sum("lexprobe: error" in p for p in pieces) == 1 and "Task was destroyed" not in done.stderr
