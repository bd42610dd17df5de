"""``lexprobe models``: the models at hand, and where a GGUF model's de-quantised folder is.

What ``--model`` takes without a network: the short names lexprobe knows (installed or not, and the command
that installs them), the Hugging Face cache's models and models under folders named with ``--look-in``, each
with its kind, size and revision (as a result's ``model.revision`` records it); and for every GGUF model its
de-quantised safetensors folder, which lm-eval's ``pretrained=`` and vLLM take (``--dequantise NAME`` makes it
now). ``models.catalog`` gathers it; nothing here loads weights.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass

from lexprobe.core.options import add_commands, option
from lexprobe.outputs import INPUT
from lexprobe.reporting import wrap_text


@dataclass(frozen=True)
class Models:
    look_in: tuple[str, ...] = option((), "also list the models in these folders and their sub-folders (folders with "
                                          "config.json or modules.json, .gguf and .vec files)", nargs="+",
                                      metavar="DIR", path=INPUT)
    dequantise: str | None = option(None, "make the de-quantised copy of this GGUF model now (a packaged short name, "
                                          "a .gguf file or a folder holding one) and print its folder: what "
                                          "lm-eval's pretrained= and vLLM take (about 30 s for SmolLM2)",
                                    metavar="MODEL")
    json: bool = option(False, "print the listing as JSON (a list of models: name, kind, where, installed, path, "
                               "size, revision, install, dequantised)")


def register(sub) -> None:
    add_commands(sub, {"models": (Models, "the models at hand: short names (installed or not), cached and local "
                                          "models with kind, size and revision, de-quantised GGUF folders",
                                  cmd_models)})


def cmd_models(args: Models) -> int:
    from lexprobe.models import catalog

    if args.dequantise:
        print(dequantise(args.dequantise))
        return 0
    known, cached, copies = catalog.known(), catalog.hub_cached(), catalog.dequantised_copies()
    found = catalog.found_in(args.look_in) if args.look_in else []
    if args.json:
        print(catalog.as_json(known + cached + copies + found))
        return 0
    print("Short names (--model NAME):")
    for e in known:
        state = "installed" if e.installed else "not installed"
        print(f"  {e.name:<23} {e.kind:<10} {state:<13} {_size(e.size):>9}  {_short(e.revision)}".rstrip())
        lines = [e.what + (f" (also: {', '.join(e.aliases)})" if e.aliases else "")]
        if e.path:
            lines.append(f"path: {e.path}")
        if e.install:
            lines.append(f"install: `{e.install}`")
        if e.kind == "causal" and e.path:
            lines.append(_dequantised_line(e))
        _print(lines)
    _section("Hugging Face cache (--model NAME; offline: HF_HUB_OFFLINE=1)", cached,
             "none (models fetched with a network land here)")
    _section("De-quantised GGUF copies (lexprobe's cache; lm-eval's pretrained=, vLLM)", copies,
             "none yet (a GGUF model's first load makes its copy; `lexprobe models --dequantise NAME` makes it now)")
    if args.look_in:
        _section(f"Found in {', '.join(args.look_in)} (--model PATH)", found, "no model folders or files")
    return 0


def _dequantised_line(e) -> str:
    if e.dequantised:
        return f"de-quantised (lm-eval pretrained=, vLLM): {e.dequantised}"
    return f"de-quantised copy not made yet: `lexprobe models --dequantise {e.name}` (or its first load)"


def _section(title: str, entries: list, empty: str) -> None:
    print(f"\n{title}:")
    if not entries:
        print(wrap_text("  " + empty, indent="  "))
    for e in entries:
        print(f"  {e.name:<37} {e.kind:<10} {_size(e.size):>9}  {_short(e.revision)}".rstrip())
        lines = [f"path: {e.path}"]
        if e.what:
            lines.append(e.what)
        if e.where != "dequantised" and e.dequantised:
            lines.append(_dequantised_line(e))
        _print(lines)


def _print(lines: list[str]) -> None:
    """Indented lines of at most 100 columns; a path is never cut (it is copied from here into commands)."""
    for line in lines:
        print(f"    {line}" if "/" in line and ": /" in line else wrap_text("    " + line, indent="    "))


def _size(n: int | None) -> str:
    if n is None:
        return ""
    for unit in ("B", "KB", "MB", "GB"):
        if n < 1024 or unit == "GB":
            return f"{n:,.0f} {unit}" if unit == "B" else f"{n:,.1f} {unit}"
        n /= 1024  # type: ignore[assignment]
    return ""  # pragma: no cover


def _short(revision: str | None) -> str:
    """``sha256:<64 hex>`` as its first 12 hex digits (a result's ``model.revision`` holds the whole)."""
    if not revision:
        return ""
    scheme, _, digest = revision.partition(":")
    return f"{scheme}:{digest[:12]}" if digest else revision


def dequantise(reference: str) -> str:
    """The de-quantised folder of a GGUF model (made now where missing): lm-eval's ``pretrained=``."""
    from lexprobe.errors import ModelError
    from lexprobe.model_names import resolve_model_path
    from lexprobe.models.gguf import as_pretrained_dir

    path = resolve_model_path(reference)
    if not path.lower().endswith(".gguf"):
        raise ModelError(f"--dequantise {reference}: not a GGUF model (a packaged short name such as "
                         "smollm2-135m-instruct, a .gguf file or a folder holding one); other models load as they are")
    print(f"lexprobe: de-quantising {path} (once; later loads and this command find the copy)", file=sys.stderr,
          flush=True)
    return as_pretrained_dir(path)
