"""docs/modules.md names every module under lexprobe/, each in the block of its own folder; docs/ARCHITECTURE.md's
recipe is a benchmark the tests run, naming few API entry points; the import graph has no cycle or upward edge."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


#: folders whose packages document themselves (a benchmark's package is its own: its modules' docstrings say what
#: they are, and the doc's tree names the folder, not each benchmark's files)
SELF_DOCUMENTED = ("benchmarks/",)


def missing_modules(doc: str, root: Path) -> list[str]:
    """Modules under ``root`` (a package) that the doc's tree does not name in their folder's block (a benchmark
    package's modules excepted: ``SELF_DOCUMENTED``)."""
    block = doc.split("```", 2)[1]
    lines = [ln for ln in block.splitlines() if ln.strip() and not ln.strip().startswith("---")]
    missing = []
    for path in sorted(root.rglob("*.py")):
        rel = path.relative_to(root)
        if rel.name == "__init__.py" or (rel.as_posix().startswith(SELF_DOCUMENTED) and len(rel.parts) > 2):
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
    doc = (REPO / "docs" / "modules.md").read_text(encoding="utf-8")
    assert missing_modules(doc, REPO / "lexprobe") == []


def test_every_benchmark_module_says_what_it_is():
    """A benchmark's package documents itself: every module of it opens with a docstring."""
    import ast

    bare = [p.relative_to(REPO).as_posix() for p in sorted((REPO / "lexprobe" / "benchmarks").rglob("*.py"))
            if p.name != "__init__.py" and not ast.get_docstring(ast.parse(p.read_text(encoding="utf-8")))]
    assert bare == []


def test_the_check_sees_a_missing_module(tmp_path):
    pkg = tmp_path / "pkg"
    (pkg / "sub").mkdir(parents=True)
    for rel in ("a.py", "sub/b.py", "sub/c.py", "__init__.py"):
        (pkg / rel).write_text("", encoding="utf-8")
    doc = "x\n```\npkg/\n  a.py   the a\n  sub/   b.py, and not the other\n  c.py   (at the top, not in sub/)\n```\n"
    assert missing_modules(doc, pkg) == ["sub/c.py"]


def _recipe(doc: str) -> str:
    return doc.split("## Recipe: add a benchmark", 1)[1].split("\n## ", 1)[0]


def test_the_recipe_is_the_benchmark_the_tests_run():
    """docs/ARCHITECTURE.md's recipe shows a whole benchmark: the very code of tests/samesense/benchmark.py, which
    tests/test_pair_task.py runs through eval, resume, report, compare and both exports (so the recipe, followed as
    written, works)."""
    recipe = _recipe((REPO / "docs" / "ARCHITECTURE.md").read_text(encoding="utf-8"))
    marker = "<!-- recipe: tests/samesense/benchmark.py -->\n```python\n"
    shown = recipe.split(marker, 1)[1].split("```", 1)[0]
    assert shown == (REPO / "tests" / "samesense" / "benchmark.py").read_text(encoding="utf-8")


def test_the_recipe_names_at_most_fifteen_api_entry_points():
    """What a newcomer must learn to add a benchmark: the lexprobe names the recipe lists, at most 15, each existing
    (a part renamed in the code fails here until the recipe says what is true), and every lexprobe name its code
    uses among them (so the count is the code's)."""
    import importlib

    recipe = _recipe((REPO / "docs" / "ARCHITECTURE.md").read_text(encoding="utf-8"))
    listed = recipe.split("The API this names", 1)[1].split("\n\n", 1)[0]
    entries = set(re.findall(r"`((?:[a-z_]+\.)+[A-Za-z_]+)`", listed))
    assert len(entries) <= 15, sorted(entries)
    for entry in sorted(entries):
        module, _, name = entry.rpartition(".")
        assert hasattr(importlib.import_module(f"lexprobe.{module}"), name), entry
    code = (REPO / "tests" / "samesense" / "benchmark.py").read_text(encoding="utf-8")
    used = {f"{m}.{n}" for m, names in re.findall(r"from lexprobe\.([\w.]+) import ([\w, ]+)", code)
            for n in names.replace(" ", "").split(",") if n[0].isupper() or n in {"option"}}
    used |= {f"tasks.pair.{n}" for n in re.findall(r"\bpair\.([A-Za-z_]+)", code)}
    assert used <= entries, sorted(used - entries)


def test_a_benchmark_is_a_record_of_at_most_a_dozen_parts():
    """A benchmark implements a few named parts, not 40-odd hooks on one class; what the framework derives from
    them are functions of ``base``, not members a benchmark could override."""
    import dataclasses as dc

    from lexprobe.core import contract as base
    from lexprobe.benchmarks.shipped import SHIPPED

    parts = {f.name for f in dc.fields(base.Benchmark)}
    assert len(parts) <= 12
    assert [name for name in vars(base.Benchmark) if not name.startswith("_") and name not in parts] == []
    for bench in SHIPPED:
        assert type(bench) is base.Benchmark, bench.meta.name


def test_the_toy_benchmark_follows_the_recipe_from_its_own_module():
    """What the recipe asks of a benchmark, the toy has: a Config with method, recipe and seed; records from
    ``run_units``; unit and baseline values; a choose method; human items; main-job parts; template fields."""
    from lexprobe.prompting.method import ChooseMethod
    from tests import toy_benchmark

    toy = toy_benchmark.TOY
    assert {"method", "recipe", "seed"} <= {f.name for f in dataclasses.fields(toy.Config)}
    assert isinstance(toy.methods["choose"], ChooseMethod) and toy.human and toy.run.llm_parts
    assert toy.template_fields and toy.run.samples
    assert toy.results.unit_values and toy.results.baseline_values and toy.items.load and toy.human.item_set
    assert toy.human.results and toy.run.default_run
    assert "run_units" in (REPO / "tests" / "toy_benchmark.py").read_text(encoding="utf-8")


def _import_graph():
    import importlib.util

    spec = importlib.util.spec_from_file_location("import_graph", REPO / "scripts" / "import_graph.py")
    module = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
    spec.loader.exec_module(module)  # type: ignore[union-attr]
    return module


def test_the_import_graph_has_no_cycle_no_upward_and_no_string_import():
    """#37 item 4: the registries are filled by literal imports from above (``benchmarks.shipped``, the backends
    registered in ``models``), so the graph, string imports included, has no cycle and no upward edge."""
    summary = _import_graph().summary()
    assert summary["string_imports"] == [] and summary["cycles"] == [] and summary["upward"] == [], summary


def test_the_import_graph_sees_imports_by_string():
    """What the graph counts as an import by string: a literal ``import_module``/``__import__`` argument and a
    ``"lexprobe.pkg.mod:attr"`` registry entry (before #37 the registries hid their upward edges this way)."""
    import ast

    code = ('import importlib\nimportlib.import_module("lexprobe.cli.run")\n__import__("lexprobe.cli")\n'
            'TABLE = {"x": "lexprobe.benchmarks.wsd.benchmark:Wsd", "y": "not:a target", "z": "lexprobe.models"}\n')
    assert _import_graph().string_imports(ast.parse(code)) == ["lexprobe.cli.run", "lexprobe.cli",
                                                               "lexprobe.benchmarks.wsd.benchmark"]
