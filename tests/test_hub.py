"""A Hugging Face name without a network (#34 item 3): one line at once naming ``HF_HUB_OFFLINE=1`` and a local
folder, not a minute of huggingface_hub's retries; a name in the local cache loads from it with one notice.

The Hub is an endpoint on a closed local port (``HF_ENDPOINT``), ``HF_HUB_OFFLINE`` unset, in a fresh process
(huggingface_hub reads both when it is imported)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time

import pytest

from tests.backends.vllm_server import free_port
from tests.conftest import REPO_ROOT


def _env(tmp_path) -> dict:
    env = {k: v for k, v in os.environ.items() if k not in ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE")}
    env.update(HF_ENDPOINT=f"http://127.0.0.1:{free_port()}", HF_HOME=str(tmp_path / "hf"),
               PYTHONPATH=str(REPO_ROOT), LEXPROBE_CACHE=str(tmp_path / "cache"))
    return env


@pytest.fixture()
def groups_file(tmp_path):
    from lexprobe.benchmarks.wdlmpro.dataset import write_jsonl
    from tests.benchmarks.wdlmpro.test_scoring import GROUPS

    return str(write_jsonl(GROUPS, tmp_path / "groups.jsonl"))


def _eval(args, env, tmp_path):
    started = time.monotonic()
    done = subprocess.run([sys.executable, "-m", "lexprobe", "wdlmpro", "eval", *args, "--out",
                           str(tmp_path / "r.json")], capture_output=True, text=True, env=env, timeout=300)
    return done, time.monotonic() - started


def test_an_unreachable_hub_name_is_one_line_at_once(tmp_path, groups_file):
    done, seconds = _eval(["--model", "gpt2", "--data", groups_file], _env(tmp_path), tmp_path)
    err = done.stderr.strip()
    print(f"--model gpt2, Hub unreachable: exit {done.returncode} after {seconds:.1f} s: {err}")
    assert done.returncode == 2 and len(err.splitlines()) == 1, err
    assert "HF_HUB_OFFLINE=1" in err and "local folder" in err and "unreachable" in err
    assert "Retrying" not in done.stderr  # no huggingface_hub back-off
    assert seconds < 10  # the bound (was 45-63 s): one probe against a refused port, before any data


def test_a_cached_hub_name_loads_from_the_cache_with_one_notice(tmp_path, groups_file, tiny_gpt2):
    snapshot = tmp_path / "hf" / "hub" / "models--gpt2" / "snapshots" / ("0" * 40)
    shutil.copytree(tiny_gpt2, snapshot)
    (snapshot.parents[1] / "refs").mkdir()
    (snapshot.parents[1] / "refs" / "main").write_text("0" * 40)
    done, seconds = _eval(["--model", "gpt2", "--data", groups_file, "--device", "cpu"], _env(tmp_path), tmp_path)
    assert done.returncode == 0, done.stderr[-2000:]
    notices = [line for line in done.stderr.splitlines() if "unreachable" in line]
    assert len(notices) == 1 and "cached copy of 'gpt2'" in notices[0] and "HF_HUB_OFFLINE=1" in notices[0]
    assert "Retrying" not in done.stderr
    assert json.loads((tmp_path / "r.json").read_text())["run"]["model"] == "gpt2"


def test_only_hub_names_are_probed(tiny_gpt2, monkeypatch):
    from lexprobe.models import hub

    asked: list[str] = []
    monkeypatch.setattr(hub, "_unreachable", lambda endpoint, name: asked.append(name))
    monkeypatch.setattr(hub, "offline", lambda: False)
    hub.check_hub_name.cache_clear()
    for reference in (str(tiny_gpt2), "random", "all-MiniLM-L6-v2", "smollm2-135m-instruct", "glove-6b-50d",
                      "http://127.0.0.1:1/v1", "vllm:/x", "./missing", "x.vec", "gpt2", "org/name"):
        hub.check_hub_name(reference)
    assert asked == ["gpt2", "org/name"]
    hub.check_hub_name.cache_clear()
