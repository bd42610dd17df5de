"""The documents and the doc test's lists agree, and every document is run by one run file (fast: no command runs).

The commands themselves run in ``test_run_*.py`` (slow); ``tests/docs/__init__.py`` says how.
"""

from __future__ import annotations

import importlib
import re
from pathlib import Path

from tests.docs.rules import (NOT_RUN, NOT_RUN_BLOCKS, QUICK_EXIT_CODES, REWRITES, EXIT_CODES, SHARED_PATHS, SNIPPETS, STAND_INS,
                              _stand_in, as_run, listed, small)
from tests.docs.snippets import RUNNABLE, SHOWN, blocks, documents, name, shown_commands
from tests.optional import SHARED_DATA

HERE = Path(__file__).resolve().parent


def test_every_document_is_run_by_one_run_file():
    """A new document with commands is run: it must be in one ``snippet_test(...)`` of a ``test_run_*.py``."""
    runs: dict[str, list[str]] = {}
    for path in sorted(HERE.glob("test_run_*.py")):
        module = importlib.import_module(f"tests.docs.{path.stem}")
        for doc in module.test_snippet.documents:
            runs.setdefault(doc, []).append(path.name)
    with_commands = {s.doc for s in SNIPPETS}
    assert {d: f for d, f in runs.items() if len(f) > 1} == {}, "a document run by two files"
    assert with_commands - set(runs) == set(), "documents no run file runs: add them to a test_run_*.py"
    assert set(runs) - with_commands == set(), "run files name documents without commands"


# --- the lists and the documents agree (fast) --------------------------------------------------------------------

def test_every_block_says_what_it_is():
    """A fenced block names its language: a run one (bash, sh, python) or a shown one (text, json, ...); an
    unnamed block could hold a command the test never sees."""
    unnamed = [f"{b.doc}:{b.line}" for doc in documents() for b in blocks(doc)
               if b.lang not in RUNNABLE and b.lang not in SHOWN]
    assert not unnamed, f"name the language of these blocks (bash, python, or one of {sorted(SHOWN)}): {unnamed}"


def test_shown_blocks_hold_no_command():
    found = [f"{name(doc)}:{line}: {text}" for doc in documents() for line, text in shown_commands(doc)]
    assert not found, "a command in a shown block escapes the test: put it in a bash block\n" + "\n".join(found)


def test_the_lists_name_only_what_the_documents_hold():
    keys = {(s.doc, s.key) for s in SNIPPETS}
    markers = {(b.doc, b.marker) for doc in documents() for b in blocks(doc) if b.marker}
    stale = [k for k in [*NOT_RUN, *REWRITES, *EXIT_CODES, *QUICK_EXIT_CODES] if k not in keys]
    stale += [k for k in NOT_RUN_BLOCKS if k not in markers]
    assert not stale, f"entries for commands no document holds (the command changed? update the entry): {stale}"
    texts = " ".join(s.text for s in SNIPPETS)
    unused = [hub for hub in STAND_INS if not re.search(rf"(?<![\w/.-]){re.escape(hub)}(?![\w/.-])", texts)]
    unused += [own for own in SHARED_PATHS if own not in texts]
    assert not unused, f"stand-ins no document needs any more: {unused}"


#: what a command this machine cannot run names: a model of the Hub, a GPU, a server, a download
_CANNOT = re.compile(r"\bvllm\b|torchrun|accelerate launch|srun\b|--device(?:-map)? cuda|https?://(?!127\.0\.0\.1)"
                     r"|\bdata fetch\b|setup(?:_vllm)?\.sh|\bpip install\b|\bhuman serve\b|\bmeta-llama/")


def test_every_snippet_runs_or_is_listed():
    """A command that names what this machine lacks (a GPU launcher, a server, a download, a Hub model without a
    stand-in) is in ``NOT_RUN`` with its reason; the others run in ``test_snippet``. The failure names the lines to
    add."""
    missing = []
    for s in SNIPPETS:
        if listed(s) is not None:
            continue
        text = _stand_in(s.text, {k: k for k in ("tiny_gpt2", "tiny_bert", "tiny_roberta", "tiny_qwen2", "tiny_llama", "tiny_llama_gguf")})
        hub = re.search(r"--model\s+(?!https?:)([\w.-]+/[\w.-]+)", text)
        if _CANNOT.search(text) or (hub and not Path(hub.group(1)).exists()):
            missing.append(f'    ({s.doc!r}, {s.key!r}): "<why>",')
    assert not missing, "add these to NOT_RUN with the reason (GPU, HUB, NETWORK, SERVER, ...):\n" + "\n".join(missing)


def test_the_sample_sizes_keep_their_order():
    """``small``: sizes above the floor keep their order and equality, so commands on one sample stay on one."""
    ranks = {"--fit-limit": [20, 100, 200]}  # its floor: 4
    assert [small("--fit-limit", v, ranks) for v in (2, 4, 20, 100, 200, None)] == [2, 4, 5, 6, 7, 8]
    doc = [s for s in SNIPPETS if s.doc == "docs/wsd.md"]
    minilm, smol = (as_run(s, doc, {"tiny_llama": "tiny-llama"}, SHARED_DATA) for s in doc if "--limit 40" in s.text)
    assert re.search(r"--limit (\d+)", minilm).group(1) == re.search(r"--limit (\d+)", smol).group(1)


def test_no_runnable_snippet_assumes_a_folder_beside_the_clone():
    found = [s.id for s in SNIPPETS if "../shared" in s.text or "/work/" in s.text]
    assert not found, f"a reader has no ../shared: use the data directory (lexprobe data fetch/import): {found}"


def test_no_two_commands_write_the_same_file():
    """A reader walks the README and then a benchmark's page in one folder: another command's ``--out`` onto a file
    an earlier one wrote is refused (another run's result) or replaces its report. The same command in two places
    rewrites its own result, which is fine."""
    writers: dict[str, set[tuple[str, str]]] = {}
    for s in SNIPPETS:
        if s.kind != "shell":
            continue
        for part in re.split(r"\s*(?:;|&&)\s*", s.key):
            for m in re.finditer(r"--out(?:-dir)?[ =](\S+)", part):
                writers.setdefault(m.group(1).rstrip("/"), set()).add((s.doc, part))
    shared = {out: sorted(w) for out, w in writers.items() if len({part for _, part in w}) > 1}
    assert not shared, f"outputs written by different commands (name them apart): {shared}"


def test_a_listed_reason_is_a_sentence():
    assert all(len(why) > 10 for why in [*NOT_RUN.values(), *NOT_RUN_BLOCKS.values()])
    assert all(len(why) > 10 for _, why in REWRITES.values())


def _lexprobe_argvs(snippet) -> list[list[str]]:
    """The ``lexprobe`` command lines of a shell snippet as written (``lexprobe ...``, ``python -m lexprobe ...``, a
    launcher's ``... -m lexprobe ...``), the document's variable settings filled in."""
    import shlex

    values = dict(line.removeprefix("export ").split("=", 1) for line in snippet.prelude)
    text = re.sub(r"\$\{?(\w+)\}?", lambda m: values.get(m.group(1), "X").split("#")[0].strip(), snippet.text)
    found = []
    for part in re.split(r"\s*(?:;|&&|\|\|)\s*", text):
        words = shlex.split(part, comments=True)
        if words[:1] == ["lexprobe"]:
            found.append(words[1:])
        elif "-m" in words and words[words.index("-m") + 1:][:1] == ["lexprobe"]:
            found.append(words[words.index("-m") + 2:])
    return found


def test_every_documented_command_line_parses():
    """Every ``lexprobe`` command of the documents, as written (those that cannot run here too: a GPU's, a
    server's), is one lexprobe's parser takes: its options exist, their values are of their choices, what is
    required is there. The documents' commands are run by ``test_run_*.py``; this check is what CI runs of them
    in under a second."""
    import contextlib
    import io

    from lexprobe.cli import build_parser

    refused = []
    for s in SNIPPETS:
        if s.kind != "shell" or EXIT_CODES.get((s.doc, s.key)) == 2:
            continue
        for argv in _lexprobe_argvs(s):
            err = io.StringIO()
            try:
                with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
                    build_parser(argv).parse_args(argv)
            except SystemExit as exit_:
                if exit_.code:
                    refused.append(f"{s.id}: lexprobe {' '.join(argv)}\n    {err.getvalue().strip().splitlines()[-1]}")
    assert not refused, "documented commands lexprobe refuses:\n" + "\n".join(refused)


def test_the_command_lines_are_found():
    """The check above reads the commands it should: a launcher's module, a variable, a chain."""
    from tests.docs.snippets import Snippet

    def snippet(text: str, prelude=()) -> Snippet:
        block = next(b for doc in documents() for b in blocks(doc))
        return Snippet("x.md", 1, "shell", text, text, block, tuple(prelude))

    assert _lexprobe_argvs(snippet("lexprobe wdlmpro eval --model $M --out a.json && lexprobe report a.json",
                                   ["M=smollm2-135m-instruct   # a note"])) == [
        ["wdlmpro", "eval", "--model", "smollm2-135m-instruct", "--out", "a.json"], ["report", "a.json"]]
    assert _lexprobe_argvs(snippet("torchrun --nproc-per-node 4 -m lexprobe coda21 eval --data clean-hard")) == [
        ["coda21", "eval", "--data", "clean-hard"]]
    assert _lexprobe_argvs(snippet("python scripts/bench_wdlmpro.py --groups 10")) == []
