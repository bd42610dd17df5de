"""Running a document's snippets in order in one folder, and the test a run file makes of it (``snippet_test``)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.docs.rules import (DOCS_RUN, expected_exit, READS_CORPORA, REPO, SHARED_PATHS, SNIPPETS, _stand_in, all_snippets,
                              as_run, listed, missing_packages, stand_ins,
                              without_its_input)
from tests.docs.snippets import Snippet, blocks
from tests.optional import SHARED_DATA, SHARED_DATA_HINT, install_hint

ZYGOTE = Path(__file__).resolve().parent / "zygote.py"

# --- running a document ------------------------------------------------------------------------------------------

@dataclass
class Outcome:
    command: str
    code: int
    output: str
    seconds: float


class DocumentRun:
    """One document's snippets run in order in one folder; a test asks for one, and the ones above it run first."""

    def __init__(self, doc: str, folder: Path, env: dict[str, str], models: dict[str, str], shared: Path):
        self.doc, self.folder, self.env, self.models, self.shared = doc, folder, env, models, shared
        self.snippets = [s for s in all_snippets() if s.doc == doc]
        self.outcomes: dict[int, Outcome] = {}

    def through(self, snippet: Snippet) -> Outcome:
        for s in self.snippets:
            if s.line in self.outcomes or listed(s) is not None or missing_packages(s) \
                    or without_its_input(s) is not None:
                continue
            self.outcomes[s.line] = self._run(s)
            if s.line == snippet.line:
                break
        return self.outcomes[snippet.line]

    def failed_before(self, snippet: Snippet) -> list[str]:
        return [f"{self.doc}:{line}" for line, o in self.outcomes.items()
                if line < snippet.line and o.code != expected_exit(_snippet(self, line))]

    def _run(self, s: Snippet) -> Outcome:
        text = as_run(s, self.snippets, self.models, self.shared)
        if s.kind == "python":
            script = self.folder / f".snippet-{s.line}.py"
            script.write_text(text, encoding="utf-8")
            argv = [sys.executable, str(script)]
        else:
            prelude = [_stand_in(line, self.models) for line in s.prelude]  # M=<a model> is the reader's input too
            argv = ["bash", "-e", "-c", "\n".join([*prelude, text])]
        start = time.monotonic()
        try:
            proc = subprocess.run(argv, cwd=self.folder, env=self.env, capture_output=True, text=True,
                                  timeout=1800, stdin=subprocess.DEVNULL)
            code, output = proc.returncode, proc.stdout + proc.stderr
        except subprocess.TimeoutExpired as err:
            code, output = -9, f"timed out after {err.timeout} s"
        outcome = Outcome(text, code, output, time.monotonic() - start)
        log = os.environ.get("LEXPROBE_TEST_DOC_LOG")  # what each command printed, for a developer to read
        if log:
            with open(log, "a", encoding="utf-8") as f:
                f.write(f"### {s.id} (exit {code}, {outcome.seconds:.1f} s): {text}\n{output}\n")
        return outcome


def _snippet(run: DocumentRun, line: int) -> Snippet:
    return next(s for s in run.snippets if s.line == line)


def _document_run(doc: str, doc_runs, tmp_path_factory, doc_bin, corpora_dir, doc_cache, request) -> DocumentRun:
    if doc in doc_runs:
        return doc_runs[doc]
    folder = tmp_path_factory.mktemp(re.sub(r"\W", "-", doc))
    (folder / "scripts").symlink_to(REPO / "scripts")  # `python scripts/...` as from the clone
    env = {k: v for k, v in os.environ.items() if not k.startswith("LEXPROBE_") or k == "LEXPROBE_NLTK_DATA"}
    data = corpora_dir if doc in READS_CORPORA else tmp_path_factory.mktemp("empty-data")
    env.update(PATH=f"{doc_bin}{os.pathsep}{env.get('PATH', '')}", PYTHONPATH=str(REPO), HF_HUB_OFFLINE="1",
               TRANSFORMERS_OFFLINE="1", LEXPROBE_CACHE=str(doc_cache), LEXPROBE_DATA=str(data),
               COLUMNS="100", TOKENIZERS_PARALLELISM="false")
    texts = " ".join(" ".join([*s.prelude, s.text]) for s in all_snippets() if s.doc == doc)
    models = {}
    table = stand_ins()
    for fixture in sorted(set(re.findall(r"\{(tiny_\w+)\}", " ".join(table.values())))):
        if any(hub in texts for hub, local in table.items() if "{" + fixture + "}" in local):
            models[fixture] = str(request.getfixturevalue(fixture))
        else:
            models[fixture] = f"<{fixture}: not built>"
    for block in blocks(REPO / doc):  # the files a reader saves from the page (``<!-- file: plan.yaml -->``)
        if block.marker and block.marker.startswith("file: "):
            (folder / block.marker.removeprefix("file: ").strip()).write_text(_stand_in(block.text, models) + "\n",
                                                                               encoding="utf-8")
    doc_runs[doc] = DocumentRun(doc, folder, env, models, SHARED_DATA)
    return doc_runs[doc]


def snippet_test(*docs: str):
    """The test of a run file: every snippet of ``docs``, in order (a run file is what one worker runs: ``.ci/run``
    gives each test file to one worker, so the documents are split over a few files of similar length)."""
    chosen = [s for s in SNIPPETS if s.doc in docs]

    @pytest.mark.slow
    @pytest.mark.parametrize("snippet", chosen, ids=[s.id for s in chosen])
    def test_snippet(snippet: Snippet, request):
        if DOCS_RUN not in ("quick", "real"):
            pytest.skip("the documents' commands run with LEXPROBE_TEST_DOCS=quick (tiny stand-ins for the causal "
                        "LMs, ~9 min on 2 cores) or =real (the installed models, ~25 min)")
        why = listed(snippet)
        if why is not None:
            pytest.skip(f"not run here: {why}")
        if any(copy in snippet.text for copy in SHARED_PATHS) and not SHARED_DATA.is_dir():
            pytest.skip(f"reads a file of the real corpora: {SHARED_DATA_HINT}")
        for module in missing_packages(snippet):
            pytest.skip(install_hint(module))
        cause = without_its_input(snippet)
        if cause is not None:
            pytest.skip(cause)
        corpora_dir = request.getfixturevalue("corpora_dir")
        if snippet.doc in READS_CORPORA and corpora_dir is None:
            pytest.skip(f"reads the real corpora: {SHARED_DATA_HINT}")
        run = _document_run(snippet.doc, request.getfixturevalue("doc_runs"), request.getfixturevalue("tmp_path_factory"),
                            request.getfixturevalue("doc_bin"), corpora_dir, request.getfixturevalue("doc_cache"), request)
        outcome = run.through(snippet)
        expected = expected_exit(snippet)
        before = run.failed_before(snippet)
        assert outcome.code == expected, (
            f"{snippet.id} exited {outcome.code}, not {expected} ({outcome.seconds:.0f} s)\n"
            f"  as written: {snippet.text}\n  as run: {outcome.command}\n"
            + (f"  (failed above it: {', '.join(before)})\n" if before else "") + outcome.output[-4000:])

    test_snippet.documents = docs  # type: ignore[attr-defined]
    return test_snippet
