"""docs/ARCHITECTURE.md names every module under lexprobe/, each in the block of its own folder."""

from __future__ import annotations

import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


def missing_modules(doc: str, root: Path) -> list[str]:
    """Modules under ``root`` (a package) that the doc's tree does not name in their folder's block."""
    block = doc.split("```", 2)[1]
    lines = [ln for ln in block.splitlines() if ln.strip() and not ln.strip().startswith("---")]
    missing = []
    for path in sorted(root.rglob("*.py")):
        rel = path.relative_to(root)
        if rel.name == "__init__.py":
            continue
        folder = rel.parent.as_posix()
        if folder == ".":
            text = " ".join(ln.split()[0] for ln in lines if _indent(ln) == 2)
        else:
            leaf = folder.split("/")[-1] + "/"
            parts = []
            for i, ln in enumerate(lines):
                if ln.strip().startswith(leaf):
                    parts.append(ln.strip()[len(leaf):])
                    for follow in lines[i + 1:]:
                        if _indent(follow) <= _indent(ln):
                            break
                        parts.append(follow)
            text = " ".join(parts)
        if not re.search(rf"(?<![\w/]){re.escape(rel.name)}\b", text):
            missing.append(rel.as_posix())
    return missing


def test_every_module_is_in_the_architecture_doc():
    doc = (REPO / "docs" / "ARCHITECTURE.md").read_text(encoding="utf-8")
    assert missing_modules(doc, REPO / "lexprobe") == []


def test_the_check_sees_a_missing_module(tmp_path):
    pkg = tmp_path / "pkg"
    (pkg / "sub").mkdir(parents=True)
    for rel in ("a.py", "sub/b.py", "sub/c.py", "__init__.py"):
        (pkg / rel).write_text("", encoding="utf-8")
    doc = "x\n```\npkg/\n  a.py   the a\n  sub/   b.py, and not the other\n  c.py   (at the top, not in sub/)\n```\n"
    assert missing_modules(doc, pkg) == ["sub/c.py"]
