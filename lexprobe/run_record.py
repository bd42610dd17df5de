"""The run record of a result file: exactly what produced its numbers.

``finish_result`` adds ``run`` (versions, git commit, device, dtype, the model's revision, the items'
digest, method, seed, command line) and ``intervals`` to every result; ``compare`` reads ``run`` to refuse
runs on different items and to warn when two runs differ in more than the model.
"""

from __future__ import annotations

import base64
import dataclasses
import datetime as _dt
import functools
import os
import platform
import shlex
import subprocess
import sys
from importlib import metadata
from pathlib import Path
from typing import Any

from lexprobe.distributed import context
from lexprobe.model_names import resolve_model_path
from lexprobe.provenance import items_digest, model_revision
from lexprobe.stats.bootstrap import describe as describe_intervals

#: fields of ``run`` that identify the model (compare expects these to differ)
MODEL_FIELDS = ("model", "model_kind", "model_revision")
#: fields that say nothing about how the numbers were produced (``job``: the resume key's digest)
INCIDENTAL_FIELDS = ("command", "created", "n_items", "job")
#: how the work was split, which cannot change a score (tests/scorers, tests/test_distributed.py), and the
#: exact argv bytes and the reproducing command: compare does not warn about them
SCORE_NEUTRAL_FIELDS = ("batch_size", "processes", "argv_bytes_b64", "reproduce")


def finish_result(result: dict, scorer: Any, items: Any, unit: str, n_items: int | None = None) -> dict:
    """Add ``run`` and ``intervals`` to ``result`` (in place) and return it (``n_items``: how many items were
    scored, where ``items`` is not a list of them)."""
    config = dict(result.get("config") or {})
    for key in ("method", "recipe"):  # schema 2 keeps them at the top level
        if key in result:
            config[key] = result[key]
    result["run"] = run_record(scorer, items, config)
    if n_items is not None:
        result["run"]["n_items"] = n_items
    result["intervals"] = describe_intervals(unit)
    return result


def run_record(scorer: Any, items: Any, config: dict) -> dict:
    """The record of one run; ``scorer`` may be None (a person's answers)."""
    from lexprobe import __version__
    plain = _plain(items)
    model = getattr(scorer, "model", None)
    model = model if hasattr(model, "parameters") else None
    seed = config.get("seed", getattr(scorer, "seed", None))
    describe = scorer.describe() if hasattr(scorer, "describe") else {}
    return {
        "lexprobe": __version__,
        **_git(),
        "python": platform.python_version(),
        "torch": _version("torch"),
        "transformers": _version("transformers"),
        "model": getattr(scorer, "name", None) or describe.get("name"),
        "model_kind": getattr(scorer, "kind", None) or describe.get("kind"),
        "model_revision": _revision(scorer, model),
        "weights": getattr(scorer, "weights", None),
        "backend": getattr(scorer, "backend_record", None),  # an endpoint: URL, served model, server (never a key)
        "device": _device(scorer, model),
        "dtype": _dtype(model) or config.get("dtype"),
        "batch_size": "auto" if getattr(scorer, "auto_batch", False) else getattr(scorer, "batch_size", None),
        "items_digest": items_digest(plain),
        "n_items": len(plain) if isinstance(plain, (list, tuple)) else None,
        "method": config.get("method") or "likelihood",
        "recipe": config.get("recipe") or "paper",
        "seed": seed,
        "command": command_line(),
        **_argv_bytes(),
        "processes": context().world_size,  # the result is the same for any number
        "created": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
    }


def command_line(argv: list[str] | None = None) -> str:
    """The command as a user would type it (``lexprobe ...``); a byte that is not UTF-8 is shown as ``\\xff``."""
    argv = [_printable(a) for a in (sys.argv if argv is None else argv)]
    if argv and (argv[0].endswith(("lexprobe", "lexprobe/__main__.py")) or argv[0] == "-m"):
        argv[0] = "lexprobe"
    return shlex.join(argv)


def _printable(arg: str) -> str:
    try:
        arg.encode("utf-8")
        return arg
    except UnicodeEncodeError:
        return os.fsencode(arg).decode("utf-8", "backslashreplace")


def _argv_bytes(argv: list[str] | None = None) -> dict:
    """``{"argv_bytes_b64": [...]}``, each argument's exact bytes, when one is not UTF-8 (D3); {} otherwise."""
    argv = list(sys.argv if argv is None else argv)
    if all(_printable(a) == a for a in argv):
        return {}
    return {"argv_bytes_b64": [base64.b64encode(os.fsencode(a)).decode("ascii") for a in argv]}


def _plain(obj: Any) -> Any:
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        return dataclasses.asdict(obj)
    if isinstance(obj, dict):
        return {str(k): _plain(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_plain(x) for x in obj]
    return obj


@functools.lru_cache(maxsize=1)
def _git() -> dict:
    """Commit of the lexprobe source checkout (and whether it had local changes), if any."""
    root = Path(__file__).resolve().parents[1]
    if not (root / ".git").exists():
        return {"git_commit": None, "git_dirty": None}
    try:
        commit = subprocess.run(["git", "-C", str(root), "rev-parse", "HEAD"], capture_output=True,
                                text=True, timeout=10, check=True).stdout.strip()
        dirty = subprocess.run(["git", "-C", str(root), "status", "--porcelain", "--untracked-files=no"],
                               capture_output=True, text=True, timeout=10, check=True).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return {"git_commit": None, "git_dirty": None}
    return {"git_commit": commit or None, "git_dirty": bool(dirty)}


def _version(package: str) -> str | None:
    try:
        return metadata.version(package)
    except metadata.PackageNotFoundError:
        return None


def _revision(scorer: Any, model: Any) -> str | None:
    if scorer is None:
        return None
    if getattr(scorer, "kind", None) == "random":
        return "random"
    if isinstance(getattr(scorer, "revision", None), str):  # what a server reports (lexprobe.backends)
        return scorer.revision
    candidates = [getattr(scorer, "path", None)]
    name = getattr(scorer, "name", None)
    if getattr(scorer, "resolved_path", None):  # what the loader resolved the reference to (models.inspect_model)
        candidates.append(scorer.resolved_path)
    elif name:
        try:
            candidates.append(resolve_model_path(name))
        except Exception:  # noqa: BLE001 - a record is best effort, never a failure
            candidates.append(name)
    config = _hf_config(model)
    candidates.append(getattr(config, "name_or_path", None))
    for c in candidates:
        if c and Path(str(c)).exists():
            return model_revision(str(c))
    commit = getattr(config, "_commit_hash", None)  # set by from_pretrained for hub downloads
    if commit:
        return f"hub:{commit}"
    return model_revision(str(name)) if name else None


def _hf_config(model: Any) -> Any:
    """The transformers config of a model, also inside a sentence-transformers model."""
    config = getattr(model, "config", None)
    if config is None and model is not None:
        try:
            config = getattr(getattr(model[0], "auto_model", None), "config", None)
        except (TypeError, IndexError, KeyError):
            config = None
    return config


def _device(scorer: Any, model: Any) -> str | None:
    device = getattr(scorer, "device", None) or getattr(model, "device", None)
    if device is None and model is not None:
        try:
            device = next(model.parameters()).device
        except StopIteration:
            device = None
    return None if device is None else str(device)


def _dtype(model: Any) -> str | None:
    if model is None:
        return None
    try:
        return str(next(model.parameters()).dtype).replace("torch.", "")
    except StopIteration:
        return None
