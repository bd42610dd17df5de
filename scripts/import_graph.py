"""The import graph of ``lexprobe/``: cycles, upward imports, largest modules.

    python3 scripts/import_graph.py            # a short report
    python3 scripts/import_graph.py --json     # the same as JSON

Every ``import`` / ``from ... import`` of a ``lexprobe`` module is an edge, also the ones
inside functions (a deferred import still ties the two modules together: a cycle of
deferred imports is a cycle), and so is every import by string: ``importlib.import_module("...")``,
``__import__("...")`` and a ``"lexprobe.pkg.mod:attr"`` string (a registry entry imported later), which
the report also lists. Cycles are the strongly connected components with more than one module. An import
is *upward* when it goes from a lower layer to a higher one (``LAYERS`` below: the foundations, then data
and models, then the contract and the generic prompting code, then the benchmarks, then what loops over the
benchmarks); a module's layer is that of the longest prefix listed for it.
"""

from __future__ import annotations

import argparse
import ast
import json
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "lexprobe"

#: (layer, module prefixes), highest first; the longest matching prefix wins
LAYERS = (
    (4, ("lexprobe.cli", "lexprobe.report", "lexprobe.human", "lexprobe.export", "lexprobe.api", "lexprobe.__main__")),
    (3, ("lexprobe.benchmarks",)),
    (2, ("lexprobe.core", "lexprobe.prompting", "lexprobe.tasks")),
    (1, ("lexprobe.data", "lexprobe.scorers", "lexprobe.backends", "lexprobe.models")),
    (0, ("lexprobe",)),
)

#: ``"lexprobe.pkg.mod:attr"``: a module named in a string, to be imported later
TARGET_STRING = re.compile(r"^(lexprobe(?:\.[A-Za-z_][A-Za-z0-9_]*)*):[A-Za-z_][A-Za-z0-9_.]*$")
#: calls that import the module their first argument names
IMPORT_CALLS = ("import_module", "__import__")


def module_name(path: Path) -> str:
    rel = path.relative_to(ROOT).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def layer(module: str) -> int:
    best = None
    for level, prefixes in LAYERS:
        for prefix in prefixes:
            if module == prefix or module.startswith(prefix + "."):
                if best is None or len(prefix) > best[0]:
                    best = (len(prefix), level)
    return best[1] if best else 0


def string_imports(tree: ast.AST) -> list[str]:
    """The modules ``tree`` imports by string: ``import_module("x")`` / ``__import__("x")`` with a literal, and
    ``"x:attr"`` strings."""
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant) \
                and isinstance(node.args[0].value, str):
            func = node.func
            name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
            if name in IMPORT_CALLS:
                out.append(node.args[0].value)
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            match = TARGET_STRING.match(node.value)
            if match:
                out.append(match.group(1))
    return out


def imports(path: Path, modules: set[str], by_string: dict[str, set[str]] | None = None) -> set[str]:
    """The lexprobe modules ``path`` imports (a name imported from a package counts as its module); those it
    imports by string are also added to ``by_string[module]``."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    here = module_name(path)
    package = here if path.name == "__init__.py" else here.rpartition(".")[0]
    out = set()
    named: list[tuple[str, bool]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join(parts + ([base] if base else []))
            names = [f"{base}.{a.name}" for a in node.names] + [base]
        else:
            continue
        named += [(n, False) for n in names]
    named += [(n, True) for n in string_imports(tree)]
    for name, as_string in named:
        while name and name not in modules:
            name = name.rpartition(".")[0]
        if name and name != here and name.startswith("lexprobe"):
            out.add(name)
            if as_string and by_string is not None:
                by_string.setdefault(here, set()).add(name)
    # "from lexprobe.x import y" adds both lexprobe.x.y (when a module) and lexprobe.x: keep the deepest
    return {m for m in out if not any(o.startswith(m + ".") for o in out) or (PACKAGE.parent / (m.replace(".", "/") + ".py")).exists()}


def graph(by_string: dict[str, set[str]] | None = None) -> tuple[dict[str, set[str]], dict[str, int]]:
    files = sorted(PACKAGE.rglob("*.py"))
    modules = {module_name(f) for f in files}
    edges = {module_name(f): imports(f, modules, by_string) for f in files}
    sizes = {module_name(f): len(f.read_text(encoding="utf-8").splitlines()) for f in files}
    return edges, sizes


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    out: list[list[str]] = []
    counter = [0]
    sys.setrecursionlimit(10000)

    def visit(v: str) -> None:
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on_stack.add(v)
        for w in sorted(edges.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return sorted(out)


def upward(edges: dict[str, set[str]]) -> list[tuple[str, str]]:
    return sorted((a, b) for a, targets in edges.items() for b in targets if layer(b) > layer(a))


def summary(top: int = 10) -> dict:
    by_string: dict[str, set[str]] = {}
    edges, sizes = graph(by_string)
    lines = sorted(sizes.values())
    return {
        "modules": len(edges),
        "edges": sum(len(t) for t in edges.values()),
        "string_imports": [f"{a} -> {b}" for a in sorted(by_string) for b in sorted(by_string[a])],
        "cycles": cycles(edges),
        "upward": [f"{a} -> {b}" for a, b in upward(edges)],
        "largest": [f"{m} ({n})" for m, n in sorted(sizes.items(), key=lambda kv: -kv[1])[:top]],
        "median_lines": lines[len(lines) // 2],
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true", help="print JSON")
    parser.add_argument("--top", type=int, default=10, help="how many of the largest modules to list")
    args = parser.parse_args(argv)
    s = summary(args.top)
    if args.json:
        print(json.dumps(s, indent=1))
        return 0
    print(f"{s['modules']} modules, {s['edges']} import edges, median {s['median_lines']} lines per module")
    print(f"string imports ({len(s['string_imports'])}, counted as edges):")
    for u in s["string_imports"]:
        print("  " + u)
    print(f"cycles ({len(s['cycles'])}):")
    for c in s["cycles"]:
        print("  " + " <-> ".join(c))
    print(f"upward imports ({len(s['upward'])}):")
    for u in s["upward"]:
        print("  " + u)
    print("largest modules:")
    for m in s["largest"]:
        print("  " + m)
    return 0


if __name__ == "__main__":
    sys.exit(main())
