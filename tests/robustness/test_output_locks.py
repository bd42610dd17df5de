"""The early output lock of the commands that write more than one `eval` result: `lexprobe run`
(its --out-dir), `senserank finetune` (its --out folder) and `coda build` (its --out file). A second
writer stops at once, with one line, before any data or model loads; the lock is held for the whole
work and gone afterwards, also when the work fails."""

from __future__ import annotations

import fcntl
import os

import pytest

from lexprobe.cli import main
from lexprobe.errors import LexprobeError, OutputBusyError
from lexprobe.locks import take_lock
from lexprobe.outputs import FOLDER_LOCK

#: name: (arguments with OUT for the output, the output under tmp_path, its lock, the option, the first work
#: after the lock: module attribute the command looks up when it runs)
COMMANDS = {
    "run": (["run", "--no-fetch", "--no-llm", "--out-dir", "OUT"], "results", f"results/{FOLDER_LOCK}", "--out-dir",
            "lexprobe.cli.run._prepare_data"),  # (the plan, models and options checked, comes before the lock)
    "senserank finetune": (["senserank", "finetune", "--instances", "100", "--out", "OUT"], "tuned",
                           f"tuned/{FOLDER_LOCK}", "--out", "lexprobe.benchmarks.senserank.finetune.finetune"),
    # --contexts wordnet: no SemCor needed, so WordNet (the work) is the one thing build lacks when it fails
    "coda build": (["coda", "build", "--context-model", "first", "--contexts", "wordnet", "--out", "OUT"],
                   "built.json", "built.json.lock",
                   "--out", "lexprobe.data.wordnet.load_wordnet"),
}


def _cli(argv, capsys):
    capsys.readouterr()
    code = main(argv)
    return code, capsys.readouterr().err.strip()


def _argv(name, tmp_path):
    args, out, lock, option, work = COMMANDS[name]
    return [str(tmp_path / out) if a == "OUT" else a for a in args], tmp_path / lock, option, work


@pytest.mark.parametrize("name", COMMANDS)
def test_a_second_writer_stops_before_any_work(name, tmp_path, capsys, monkeypatch):
    argv, lock, option, work = _argv(name, tmp_path)
    monkeypatch.setattr(work, lambda *a, **k: pytest.fail(f"{work} ran although another writer holds {lock}"))
    lock.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(lock, os.O_RDWR | os.O_CREAT)  # the first writer, still running
    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    try:
        code, err = _cli(argv, capsys)
    finally:
        os.close(fd)
    assert code == 2 and "\n" not in err, err
    assert "another lexprobe run is writing" in err and lock.name in err and f"pass another {option}" in err


@pytest.mark.parametrize("name", COMMANDS)
def test_the_lock_is_held_for_the_work_and_released_after_it(name, tmp_path, capsys, monkeypatch):
    argv, lock, _, work = _argv(name, tmp_path)
    held = []

    def the_work(*a, **k):
        with pytest.raises(OutputBusyError):  # what a second writer would meet now
            take_lock(lock, "busy")
        held.append(True)
        raise LexprobeError("the work failed")  # a failure releases the lock too

    monkeypatch.setattr(work, the_work)
    code, err = _cli(argv, capsys)
    assert held == [True] and code == 2 and err.endswith("the work failed"), err
    assert not lock.exists()
