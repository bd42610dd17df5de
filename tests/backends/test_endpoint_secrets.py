"""No secret leaves the program (#33 D7, and the sentinel-key class over D6, D8, D9): redaction happens once,
where text leaves (the standard streams, result files, resume logs) and where a server's text comes in,
always before any cut; a server that echoes the Authorization header everywhere (error bodies, model ids,
generated text, chat answers, a redirect to a second host) never gets the key shown, written or sent
elsewhere, whatever command runs."""

from __future__ import annotations

import json
import logging
import sys
import traceback

import pytest

from lexprobe.cli import main
from lexprobe.errors import ModelError
from lexprobe.redaction import MASK, RedactingStream, clip, redact, redact_streams, register_secret
from tests.backends.fake_openai import Recorder, send

pytestmark = pytest.mark.usefixtures("quick_retries")

SENTINEL = "sk-SENTINEL-7f3a9c-never-print-me"


def _fragments(secret: str, size: int = 8) -> set[str]:
    """Every piece of ``secret`` long enough to say what it was."""
    return {secret[i:i + size] for i in range(len(secret) - size + 1)}


def _leaks(text: str, secret: str = SENTINEL) -> set[str]:
    return {f for f in _fragments(secret) if f in text}


@pytest.mark.parametrize("limit", [20, 80, 200, 300])
def test_clip_redacts_before_it_cuts_wherever_the_key_straddles_the_cut(limit):
    register_secret(SENTINEL)
    line = f"Bearer {SENTINEL} (retry later)"
    for pad in range(max(0, limit - len(line) - 2), limit + 2):
        text = "x" * pad + line
        out = clip(text, limit)
        assert not _leaks(out), (pad, out)
        assert len(out) <= limit + 3
        # cutting first, the old way, leaks a prefix at some of these positions: the test can fail
    assert any(_leaks((("x" * pad + line)[:limit])) for pad in range(max(0, limit - len(line)), limit + 2))


def test_redact_finds_the_key_in_json_spelling_too():
    register_secret('sk-"quoted\\key')
    assert redact(json.dumps({"k": 'sk-"quoted\\key'})) == json.dumps({"k": MASK})[:-2] + '"}' or \
        MASK in redact(json.dumps({"k": 'sk-"quoted\\key'}))
    assert 'quoted' not in redact(json.dumps({"k": 'sk-"quoted\\key'}))


def test_a_placeholder_key_is_sent_but_does_not_mask_the_results(fake, monkeypatch):
    """``OPENAI_API_KEY=EMPTY`` (vLLM's placeholder) or ``1``: masking it would change every result that
    holds the word or the digit; no real key is that short."""
    from lexprobe.models import load_scorer

    monkeypatch.delenv("LEXPROBE_API_KEY", raising=False)
    for key in ("EMPTY", "1"):
        monkeypatch.setenv("OPENAI_API_KEY", key)
        load_scorer(fake.url)
        assert redact("EMPTY 1 2") == "EMPTY 1 2"
    assert {auth for _, _, auth in fake.requests} == {"Bearer EMPTY", "Bearer 1"}


def test_result_files_and_resume_logs_are_written_redacted(tmp_path):
    from lexprobe.cache import _json_line
    from lexprobe.reporting import write_json

    register_secret(SENTINEL)
    path = write_json(tmp_path / "r.json", {"model": f"m-{SENTINEL}", SENTINEL: [f"Bearer {SENTINEL}", 1.5],
                                            "t": (SENTINEL,)})
    text = path.read_text()
    assert SENTINEL not in text and json.loads(text)["model"] == f"m-{MASK}"
    assert SENTINEL not in _json_line({"record": SENTINEL}) and MASK in _json_line({"record": SENTINEL})


def test_the_streams_logging_and_warnings_of_the_cli_are_redacted(capsys, monkeypatch):
    monkeypatch.setattr(sys, "stdout", sys.stdout)
    monkeypatch.setattr(sys, "stderr", sys.stderr)
    register_secret(SENTINEL)
    redact_streams()
    assert isinstance(sys.stdout, RedactingStream) and isinstance(sys.stderr, RedactingStream)
    redact_streams()  # once only
    assert not isinstance(sys.stdout.wrapped, RedactingStream)
    print(f"said {SENTINEL}")
    handler = logging.StreamHandler(sys.stderr)
    logger = logging.getLogger("lexprobe.test-redaction")
    logger.addHandler(handler)
    try:
        logger.warning("logged %s", SENTINEL)
        try:
            raise ValueError(SENTINEL)
        except ValueError:
            logger.exception("a traceback")
    finally:
        logger.removeHandler(handler)
    printed = capsys.readouterr()
    assert "said ***" in printed.out and "logged ***" in printed.err
    assert SENTINEL not in printed.out + printed.err and "ValueError: ***" in printed.err


def test_warnings_and_an_uncaught_traceback_are_redacted_in_a_process_of_their_own(tmp_path):
    """Python's own warning printer and its last-resort traceback (after ``main``) write to the wrapped
    streams (pytest replaces the first, so a process of its own)."""
    import os
    import subprocess
    from pathlib import Path

    import lexprobe

    code = ("import warnings\nfrom lexprobe.redaction import register_secret, redact_streams\n"
            f"register_secret({SENTINEL!r})\nredact_streams()\n"
            f"warnings.warn('warned ' + {SENTINEL!r})\nraise RuntimeError('died ' + {SENTINEL!r})\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=tmp_path,
                          env={**os.environ, "PYTHONWARNINGS": "always",
                               "PYTHONPATH": str(Path(lexprobe.__file__).parents[1])})
    assert done.returncode == 1
    assert "warned ***" in done.stderr and "RuntimeError: died ***" in done.stderr and SENTINEL not in done.stderr


@pytest.mark.parametrize("status,limit", [(401, 300), (500, 200)])
def test_an_error_body_with_the_key_at_every_cut_position_never_shows_it(status, limit, fake, wdlmpro_data, tmp_path,
                                                                        capsys, monkeypatch):
    """D7: a 401 body of 268 x's + ``invalid key: Bearer <key>`` once showed ``Bearer sk-SENTINEL-...``
    (the detail cut to 300 characters before redaction; a retried error's to 200)."""
    monkeypatch.setenv("LEXPROBE_API_KEY", SENTINEL)
    pad = {"n": 0}
    fake.raw = lambda h, path, body: path == "/v1/models" and send(
        h, status, {"error": {"message": "x" * pad["n"] + f"invalid key: Bearer {h.headers.get('Authorization')}"}})
    line = len(f"invalid key: Bearer Bearer {SENTINEL}")
    for n in range(limit - line - 4, limit + 2, 3):
        pad["n"] = n
        assert main(["wdlmpro", "eval", "--data", wdlmpro_data, "--model", fake.url,
                     "--out", str(tmp_path / "r.json")]) == 2
        printed = capsys.readouterr()
        assert not _leaks(printed.err + printed.out), (n, printed.err)
        assert f"HTTP {status}" in printed.err
    assert {auth for _, _, auth in fake.requests} == {f"Bearer {SENTINEL}"}  # the server did get it


def test_a_non_json_answer_echoing_the_key_is_cut_after_redaction(fake, tmp_path, monkeypatch):
    from lexprobe.models import load_scorer

    monkeypatch.setenv("LEXPROBE_API_KEY", SENTINEL)
    for pad in range(40, 90, 7):
        fake.raw = lambda h, path, body, pad=pad: path == "/v1/models" and send(
            h, 200, body=("<" * pad + h.headers.get("Authorization")).encode())
        with pytest.raises(ModelError) as err:
            load_scorer(fake.url)
        assert "is not JSON" in str(err.value) and not _leaks(str(err.value)), str(err.value)


def _every_output(tmp_path, printed: list[str], caplog) -> str:
    files = [p.read_text(errors="replace") for p in tmp_path.rglob("*") if p.is_file()]
    return "\n".join(printed + files + [caplog.text])


def test_the_sentinel_key_never_leaves_whatever_the_server_echoes(fake, llama, tiny_llama, wdlmpro_data, tmp_path,
                                                                 capsys, caplog, monkeypatch):
    """A server that puts the Authorization header in its error bodies, its generated text and chat answers,
    and redirects ``/version`` to a second host (which records what it gets): the real commands run (the
    likelihood method, ask-to-choose by completions and by chat, a run that fails mid-way, with and without
    --traceback); the key is in no output, no file, no log, and the second host got nothing."""
    monkeypatch.setenv("LEXPROBE_API_KEY", SENTINEL)
    caplog.set_level(logging.INFO)
    printed: list[str] = []
    with Recorder() as other:
        fake.echo_auth = True
        fake.raw = lambda h, path, body: path == "/version" and send(
            h, 302, {"error": h.headers.get("Authorization")}, {"Location": f"{other.origin}/version"})
        out = tmp_path / "out"
        base = ["wdlmpro", "eval", "--data", wdlmpro_data, "--model", fake.url]
        runs = [base + ["--batch-size", "1", "--chunk-size", "1", "--out", str(out / "likelihood.json")],
                base + ["--method", "choose", "--max-candidates", "3", "--max-new-tokens", "3",
                        "--out", str(out / "choose.json")],
                base + ["--kind", "chat", "--method", "choose", "--reading", "generation", "--max-candidates", "3",
                        "--max-new-tokens", "3", "--out", str(out / "chat.json")]]
        for args in runs:
            assert main(args) == 0, args
            done = capsys.readouterr()
            printed += [done.out, done.err]
            if args is runs[0]:
                half = fake.completions_calls // 2
        chosen = json.loads((out / "choose.json").read_text())
        assert any("***" in json.dumps(r.get("generation")) for r in chosen["instances"])  # it was echoed, masked
        fake.die_after, fake.completions_calls = half, 0  # error bodies echo the header from half-way on
        assert main(base + ["--batch-size", "1", "--chunk-size", "1", "--out", str(out / "dies.json")]) == 2
        with pytest.raises(ModelError) as err:
            main(["--traceback"] + base + ["--batch-size", "1", "--chunk-size", "1", "--out", str(out / "dies.json")])
        printed.append("".join(traceback.format_exception(err.value)))
        fake.die_after = None
        fake.echo_auth_ids = True  # the model ids hold the header: the run cannot start, and says so in one line
        assert main(base + ["--out", str(out / "ids.json")]) == 2
        done = capsys.readouterr()
        printed += [done.out, done.err]
        assert "Bearer ***" in done.err
        assert other.seen == []
    assert {auth for _, _, auth in fake.requests} == {f"Bearer {SENTINEL}"}
    everything = _every_output(tmp_path, printed, caplog)
    assert (out / "likelihood.json").is_file() and (out / "chat.json").is_file()
    assert list(tmp_path.rglob("dies.json*")), "the failed run left its resume log"
    assert not _leaks(everything), _leaks(everything)


def test_the_sentinel_key_never_leaves_the_main_job(fake, imported_data, tmp_path, capsys, caplog, monkeypatch):
    """``lexprobe run --model URL`` writes results, summary.json and a report: none holds the key."""
    monkeypatch.setenv("LEXPROBE_API_KEY", SENTINEL)
    fake.echo_auth = True
    out = tmp_path / "job"
    assert main(["run", "--model", fake.url, "--only", "wdlmpro", "--sample", "2", "--no-fetch",
                 "--out-dir", str(out)]) == 0
    done = capsys.readouterr()
    assert (out / "summary.json").is_file() and list(out.rglob("*.html"))
    assert not _leaks(_every_output(tmp_path, [done.out, done.err], caplog))
