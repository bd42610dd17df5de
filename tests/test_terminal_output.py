"""Text from outside is printed safely, in every message, because the CLI's streams make it so where it leaves
(redaction.RedactingStream): terminal controls (ESC, BEL, C0 but newline and tab, DEL, C1, bidirectional
overrides) are escaped — a server's error body or model id holding `\\x1b[2J\\x1b]0;TITLE\\x07` once cleared and
retitled the terminal — and a long run of notices of one kind is cut with a count (a list of malformed groups
once printed 200,000 lines to stdout and as many warnings to stderr), as is a notice too long to read. A
progress bar's carriage return and cursor-up still work; tables are never cut."""

from __future__ import annotations

import io
import json
import logging

import pytest

from lexprobe.cli import main
from lexprobe.redaction import NOTICE_CHARS, NOTICE_RUN, RedactingStream, clip, one_line, printable
from tests.backends.fake_openai import FakeOpenAI, send

ATTACK = "\x1b[2J\x1b]0;TITLE\x07"
UNSAFE = ["\x1b", "\x07", "\x9b", "\x00", "\x7f", "\u202e", "\x08"]


def _stream():
    sink = io.StringIO()
    return RedactingStream(sink), sink


@pytest.mark.parametrize("char", UNSAFE)
def test_every_terminal_control_is_escaped(char):
    stream, sink = _stream()
    stream.write(f"model x{char}y\n")
    assert char not in sink.getvalue() and sink.getvalue() == f"model x{printable(char)}y\n"
    assert printable(char).startswith("\\")


def test_newlines_and_tabs_stay_and_a_progress_bar_still_draws():
    stream, sink = _stream()
    stream.write("a\tb\nc\n")
    stream.write("\rbar 10%|#   |")  # tqdm redraws its line from a carriage return
    stream.write("\x1b[A\x1b[A")  # and moves up to nested bars
    stream.write("x\ry\n")  # a carriage return inside text would overwrite what precedes it: escaped
    assert sink.getvalue() == "a\tb\nc\n\rbar 10%|#   |\x1b[A\x1b[Ax\\ry\n"


def test_clip_and_one_line_escape_and_count():
    assert "\x1b" not in clip(f"HTTP 500 {ATTACK}", 300) and "\\x1b[2J" in clip(f"HTTP 500 {ATTACK}", 300)
    assert one_line("\n".join(f"problem {i}" for i in range(25))).endswith("problem 9; ... and 15 more")
    assert one_line("one\n\n  two \n") == "one; two"


@pytest.mark.parametrize("head", ["lexprobe: skipping", "WARNING lexprobe.benchmarks.coda21.likelihood: skipping"])
def test_a_long_run_of_notices_is_cut_with_a_count(head):
    stream, sink = _stream()
    for i in range(NOTICE_RUN + 180):
        stream.write(f"{head} group n/{i}: malformed")  # print writes the text, then the newline
        stream.write("\n")
    stream.write("results written to r.json\n")
    lines = sink.getvalue().splitlines()
    assert lines[:NOTICE_RUN] == [f"{head} group n/{i}: malformed" for i in range(NOTICE_RUN)]
    assert lines[NOTICE_RUN] == f"lexprobe: ... and 180 more lines like the {NOTICE_RUN} above ({head} ...), not shown"
    assert lines[NOTICE_RUN + 1:] == ["results written to r.json"]


def test_the_count_is_printed_when_the_program_ends_on_a_run():
    stream, sink = _stream()
    for i in range(NOTICE_RUN + 3):
        stream.write(f"lexprobe: skipping {i}\n")
    stream.close_run()
    assert sink.getvalue().splitlines()[-1].startswith("lexprobe: ... and 3 more lines")


def test_notices_of_different_kinds_and_tables_are_not_cut():
    stream, sink = _stream()
    rows = [f"| dog | {i} |" for i in range(NOTICE_RUN * 3)]
    for row in rows:
        stream.write(row + "\n")
    for i in range(NOTICE_RUN * 2):
        stream.write(f"lexprobe: {'skipping' if i % 2 else 'note'} {i}\n")
    assert sink.getvalue().splitlines() == rows + [f"lexprobe: {'skipping' if i % 2 else 'note'} {i}"
                                                   for i in range(NOTICE_RUN * 2)]


def test_a_notice_too_long_to_read_is_cut_with_a_count_but_a_table_line_is_not():
    stream, sink = _stream()
    stream.write("lexprobe: error: " + "x" * (NOTICE_CHARS + 500) + "\n")
    stream.write("y" * (NOTICE_CHARS + 500) + "\n")
    first, second = sink.getvalue().splitlines()
    assert first.endswith("... (517 more characters)") and len(first) < NOTICE_CHARS + 40
    assert second == "y" * (NOTICE_CHARS + 500)


def test_logging_through_the_stream_is_escaped(capsys, monkeypatch):
    import sys

    from lexprobe.redaction import redact_streams

    monkeypatch.setattr(sys, "stderr", sys.stderr)
    redact_streams()
    handler = logging.StreamHandler(sys.stderr)
    logger = logging.getLogger("lexprobe.test-printing")
    logger.addHandler(handler)
    try:
        logger.warning("model id %s", ATTACK)
    finally:
        logger.removeHandler(handler)
    err = capsys.readouterr().err
    assert "\x1b" not in err and "\x07" not in err and "\\x1b[2J\\x1b]0;TITLE\\x07" in err


# ---------------------------------------------------------------------- through the CLI
@pytest.fixture()
def fake(tiny_llama):
    from lexprobe.models import load_scorer

    with FakeOpenAI(load_scorer(str(tiny_llama), device="cpu"), name=str(tiny_llama)) as server:
        yield server


@pytest.fixture()
def quick(monkeypatch):
    import lexprobe.backends.client as client

    monkeypatch.setattr(client, "RETRIES", 1)
    monkeypatch.setattr(client, "BACKOFF", 0.001)


@pytest.fixture()
def groups(tmp_path):
    from lexprobe.benchmarks.wdlmpro.dataset import write_jsonl
    from tests.benchmarks.wdlmpro.test_scoring import GROUPS

    return str(write_jsonl(GROUPS, tmp_path / "groups.jsonl"))


ERROR_BODIES = {
    "a final error's JSON message": (401, json.dumps({"error": {"message": f"bad key {ATTACK}"}}).encode()),
    "a retried error's text": (503, f"overloaded {ATTACK}".encode()),
    "an answer that is not JSON": (200, f"<html>{ATTACK}</html>".encode()),
}


@pytest.mark.parametrize("case", list(ERROR_BODIES))
def test_a_server_error_body_with_escape_codes_prints_escaped(case, fake, groups, tmp_path, capsys, quick):
    status, body = ERROR_BODIES[case]
    fake.raw = lambda h, path, request: path == "/v1/models" and send(h, status, body=body)
    code = main(["wdlmpro", "eval", "--model", fake.url, "--data", groups, "--out", str(tmp_path / "r.json")])
    printed = capsys.readouterr()
    assert code == 2 and printed.err.count("\n") == 1, printed.err
    assert not any(c in printed.out + printed.err for c in UNSAFE)
    assert "\\x1b[2J" in printed.err


def test_a_model_id_with_escape_codes_prints_escaped(fake, groups, tmp_path, capsys):
    fake.models = [f"served{ATTACK}", "other\u202emodel"]
    code = main(["wdlmpro", "eval", "--model", fake.url, "--data", groups, "--out", str(tmp_path / "r.json")])
    printed = capsys.readouterr()
    assert code == 2 and "serves 2 models" in printed.err, printed.err
    assert not any(c in printed.err for c in UNSAFE) and "served\\x1b[2J\\x1b]0;TITLE\\x07" in printed.err


def test_a_data_file_with_hundreds_of_malformed_groups_prints_a_count(tmp_path):
    """CoDA21 names each malformed group it skips (stdout) and its method warns of each (stderr): 20 of each
    kind are shown, the rest counted; a crafted synset name's escape codes are printed escaped. In a process
    of its own: the CLI's logging is its own there (pytest keeps its handlers in process)."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    import lexprobe
    from tests.benchmarks.coda21.helpers import small_coda

    data = small_coda()
    bad = {"common_ancestor_info": {}, "candidates": [
        {"synset_name": f"x{ATTACK}.n.01", "definition": "d", "contexts": ["no target"], "words_in_contexts": ["zz"]}
    ] * 3}
    data["n"] += [bad] * 300
    path = tmp_path / "coda.json"
    path.write_text(json.dumps(data))
    env = {**os.environ, "PYTHONPATH": str(Path(lexprobe.__file__).parents[1]), "TQDM_DISABLE": "1"}
    done = subprocess.run([sys.executable, "-m", "lexprobe", "coda21", "eval", "--model", "random", "--data",
                           str(path), "--out", str(tmp_path / "r.json")], capture_output=True, text=True, env=env,
                          cwd=tmp_path, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    for stream, head in ((done.stdout, "lexprobe: skipping"),
                         (done.stderr, "WARNING lexprobe.benchmarks.coda21.likelihood: skipping")):
        lines = stream.splitlines()
        assert sum(line.startswith(head) for line in lines) == NOTICE_RUN, stream[:3000]
        assert f"lexprobe: ... and {300 - NOTICE_RUN} more lines like the {NOTICE_RUN} above ({head} ...)" in stream
        assert not any(c in stream for c in UNSAFE) and "x\\x1b[2J\\x1b]0;TITLE\\x07.n.01" in stream
    assert "skipped groups 300" in done.stdout  # what was cut from the screen is in the result's counts


def test_each_command_counts_its_own_notices(tmp_path, capsys):
    """In one process (a notebook, the tests), a command's run of notices does not continue the last one's."""
    for _ in range(NOTICE_RUN + 5):
        assert main(["wdlmpro", "eval", "--model", "random", "--data", str(tmp_path / "missing.jsonl"),
                     "--out", str(tmp_path / "r.json")]) == 2
        assert capsys.readouterr().err.startswith("lexprobe: error: ")
