"""Measure the commands of README.md and docs/ whose comment says how long they take, as written, and print
their times (``--fill`` writes them into the documents: in place of a ``TIME_<NAME>`` placeholder or of the time
the comment ends with, ``42 s`` or ``3 min 10 s``).

Why: a page that says "TIME: 2 min" must say what this machine measured for that very command, not an
estimate; the doc test (``tests/docs/``) runs the commands with smaller samples, so it cannot measure them.

Each document's timed commands run in its order, as written (full samples, the installed models), in one
folder of its own, with the data directory of ``LEXPROBE_DATA`` (import the corpora first: ``lexprobe data
import``) and the default cache (warm it with one run first to time what a reader's later runs take).
Times are wall clock, rounded (``42 s``, ``3 min 10 s``); the machine and its load are printed with them.

    python scripts/doc_times.py                  # print every timed command's time
    python scripts/doc_times.py --doc docs/wsd.md --fill
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from tests.docs.snippets import documents, name, snippets  # noqa: E402

#: what a command's comment ends with where the document gives its time: a placeholder or a measured time
PLACEHOLDER = re.compile(r"TIME_[A-Z0-9]+|\b\d+ min(?: \d+ s)?$|\b\d+ s$")


def rounded(seconds: float) -> str:
    if seconds < 60:
        return f"{seconds:.0f} s"
    minutes, rest = divmod(round(seconds / 10) * 10, 60)
    return f"{minutes:.0f} min" + (f" {rest:.0f} s" if rest else "")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--doc", action="append", help="only this document (README.md, docs/wsd.md, ...)")
    parser.add_argument("--fill", action="store_true", help="write the times in place of their placeholders")
    parser.add_argument("--missing", action="store_true", help="only the commands whose time is a placeholder")
    args = parser.parse_args()
    load = os.getloadavg()[0]
    print(f"{os.cpu_count()} cores, load {load:.1f} at the start")
    for doc in documents():
        if args.doc and name(doc) not in args.doc:
            continue
        timed = [s for s in snippets(doc) if s.kind == "shell" and " #" in s.text
                 and PLACEHOLDER.search(s.text.split(" #", 1)[1].strip())
                 and (not args.missing or "TIME_" in s.text)]
        if not timed:
            continue
        text = doc.read_text(encoding="utf-8")
        with tempfile.TemporaryDirectory(prefix="doc-times-") as folder:
            (Path(folder) / "scripts").symlink_to(REPO / "scripts")  # `python scripts/...` as from the clone
            for s in timed:
                command = s.text.split(" #")[0].strip()
                start = time.monotonic()
                proc = subprocess.run(["bash", "-e", "-c", "\n".join([*s.prelude, command])], cwd=folder,
                                      capture_output=True, text=True, stdin=subprocess.DEVNULL)
                took = time.monotonic() - start
                placeholder = PLACEHOLDER.search(s.text.split(" #", 1)[1].strip()).group(0)
                status = "" if proc.returncode == 0 else f"  FAILED (exit {proc.returncode}): " \
                                                         f"{(proc.stderr or proc.stdout).strip().splitlines()[-1:]}"
                print(f"{name(doc)}:{s.line} {placeholder} {rounded(took)}  {command}{status}", flush=True)
                if args.fill and proc.returncode == 0:  # on the command's own line
                    line = next(x for x in text.split("\n") if x.startswith(command) and x.rstrip().endswith(placeholder))
                    text = text.replace(line, line.rstrip()[: -len(placeholder)] + rounded(took), 1)
        if args.fill:
            doc.write_text(text, encoding="utf-8")
    print(f"load {os.getloadavg()[0]:.1f} at the end")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
