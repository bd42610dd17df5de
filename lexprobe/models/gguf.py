"""GGUF checkpoints: one file holding the weights (often quantised), the tokenizer and the chat template.

``--model file.gguf`` (a folder holding one, or a packaged short name: ``model_names``) is read by
transformers' GGUF support, de-quantised to float32, tokenizer and chat template from the same file;
results say so (``weights_record``; the revision is the file's SHA-256). Reading a GGUF is slow (about
30 s for SmolLM2-135M), so the de-quantised copy is saved once as a safetensors folder under
``cache_dir()/gguf/``, keyed by the file's SHA-256 and the converters' versions, and every load takes the
ordinary safetensors path (``as_pretrained_dir``).
"""

from __future__ import annotations

import contextlib
import importlib.util
import json
import os
import shutil
import sys
from pathlib import Path
from typing import Any, Iterator, TypedDict

from lexprobe.errors import ModelError
from lexprobe.model_names import gguf_file

#: what transformers can build from a GGUF but lexprobe cannot score (encoder-decoder models)
_NOT_CAUSAL = ("t5", "umt5", "t5encoder")
_CACHE_FORMAT = 1


def metadata(path: str | Path) -> dict:
    """The file's scalar metadata (arrays such as the vocabulary left as counts): fast, no tensors read."""
    from transformers.integrations.gguf.reader import read_gguf_metadata

    try:
        fields, _ = read_gguf_metadata(str(path))
    except Exception as err:  # noqa: BLE001 - a damaged or foreign file, whatever the reader raises
        raise ModelError(f"cannot read {path} as a GGUF file ({str(err).splitlines()[0] if str(err) else type(err).__name__}); "
                         "the file is damaged or not GGUF: download it again") from None
    return fields


def architecture(path: str | Path, fields: dict | None = None) -> str:
    return str((metadata(path) if fields is None else fields).get("general.architecture", "?"))


def check_architecture(path: str | Path, fields: dict | None = None) -> str:
    """The kind lexprobe scores a GGUF file as ("causal"), or a one-line error naming its architecture
    (``fields``: its header, when already read)."""
    from transformers.modeling_gguf_pytorch_utils import GGUF_SUPPORTED_ARCHITECTURES

    arch = architecture(path, fields)
    if arch not in GGUF_SUPPORTED_ARCHITECTURES or arch in ("general", "tokenizer"):
        raise ModelError(f"GGUF file {Path(path).name} has architecture {arch!r}, which transformers cannot read "
                         "from GGUF; convert the original checkpoint to safetensors and pass its folder")
    if arch in _NOT_CAUSAL:
        raise ModelError(f"GGUF file {Path(path).name} holds a {arch!r} encoder-decoder model; lexprobe scores "
                         "GGUF files as causal LMs only")
    return "causal"


def weights_record(path: str | Path, fields: dict | None = None, run_by: str | None = None) -> dict:
    """What a result's weights are: a GGUF file (its name, quantisation, SHA-256), de-quantised by transformers,
    or run at its quantisation by ``run_by`` (``llama.cpp``); ``fields``: its header, when already read."""
    from lexprobe.provenance import model_revision

    fields = metadata(path) if fields is None else fields
    record = {"format": "gguf", "file": Path(path).name,
              "quantisation": quantisation_name(fields.get("general.file_type")),
              "dequantised_to": None if run_by else "float32, then the run's dtype",
              "revision": model_revision(str(path)), "gguf_name": fields.get("general.name")}
    if run_by:
        record["run_by"] = f"{run_by}, at the file's quantisation"
    return record


def quantisation_name(file_type) -> str | None:
    if file_type is None:
        return None
    try:
        from gguf import LlamaFileType

        return LlamaFileType(int(file_type)).name.removeprefix("MOSTLY_")
    except (ImportError, ValueError):
        return f"file_type {file_type}"


def cache_folder(path: str | Path) -> Path:
    """Where the de-quantised copy of ``path`` lives: keyed by the file's SHA-256 and the converters' versions."""
    from importlib import metadata as md

    from lexprobe.cache import cache_dir, stable_hash
    from lexprobe.provenance import model_revision

    key = stable_hash([_CACHE_FORMAT, model_revision(str(path)), md.version("transformers"), md.version("gguf")], 24)
    return cache_dir() / "gguf" / key


def as_pretrained_dir(path: str, fields: dict | None = None) -> str:
    """``path`` itself, or for a GGUF file the folder of its de-quantised copy (converted once, then cached);
    ``fields``: the file's header, already read and checked."""
    file = gguf_file(path)
    if file is None:
        return path
    if fields is None:
        check_architecture(file)
    folder = cache_folder(file)
    wrong = cache_problem(folder)
    if wrong is not None:
        if folder.exists():
            print(f"lexprobe: the de-quantised copy of {file.name} in {folder} is {wrong}; converting it again",
                  file=sys.stderr, flush=True)
        folder = _writable_or_private(folder)
        convert(file, folder)
    return str(folder)


def _writable_or_private(folder: Path) -> Path:
    """``folder``, or (the cache is read-only: a shared, pre-filled one, D16) the same name in a private
    temporary folder removed at exit, with one notice: the model is converted without storing the copy."""
    from lexprobe.cache import cache_not_writable, private_folder

    existing = folder.parent
    while not existing.exists() and existing.parent != existing:
        existing = existing.parent
    if os.access(existing, os.W_OK):
        return folder
    cache_not_writable(existing, PermissionError(13, "not writable"))
    return private_folder("lexprobe-gguf-") / folder.name


class CacheSource(TypedDict):
    """``source.json`` of a de-quantised copy: what it was made from and every file it holds, by size."""

    gguf: str
    revision: str
    format: int
    files: dict[str, int]


def cache_problem(folder: Path) -> str | None:
    """Why the cached copy in ``folder`` cannot be used (None: it can): absent, from an older lexprobe, or a
    file missing or of another size than written (an interrupted conversion, a file cut by hand)."""
    from lexprobe.validation import problems

    source = folder / "source.json"
    if not source.is_file():
        return "absent" if not folder.exists() else "incomplete (no source.json)"
    try:
        record = json.loads(source.read_text(encoding="utf-8"))
    except (OSError, ValueError, RecursionError):
        return "damaged (source.json is not JSON)"
    wrong = problems(record, CacheSource, "source.json")
    if wrong:
        return f"from an older lexprobe or damaged ({wrong[0]})"
    if record["format"] != _CACHE_FORMAT:
        return f"of another cache format ({record['format']})"
    for name, size in record["files"].items():
        path = folder / name
        if Path(name).is_absolute() or ".." in Path(name).parts or not path.is_file():
            return f"incomplete ({name} is missing)"
        if path.stat().st_size != size:
            return f"damaged ({name} has {path.stat().st_size} bytes, {size} were written)"
    return None


@contextlib.contextmanager
def _read_once() -> Iterator[None]:
    """Within: the ``gguf`` package's file reader and tensor-name maps made once per file and architecture.

    Why: transformers reads the file's header three times for one conversion (tokenizer, configuration, model:
    ``GGUFReader`` builds ~300,000 fields of SmolLM2's vocabulary each time) and builds the same tensor-name map
    once per module (397 times for SmolLM2): of the conversion's ~35 s of CPU, ~12 s. Both only read: the same
    reader and map serve every call. Put back on the way out."""
    import functools

    import gguf

    reader, names = gguf.GGUFReader, gguf.get_tensor_name_map
    gguf.GGUFReader = functools.lru_cache(maxsize=4)(reader)  # type: ignore[misc,assignment]
    gguf.get_tensor_name_map = functools.lru_cache(maxsize=None)(names)  # type: ignore[assignment]
    try:
        yield
    finally:
        gguf.GGUFReader, gguf.get_tensor_name_map = reader, names  # type: ignore[misc]


def convert(file: Path, folder: Path) -> None:
    """De-quantise ``file`` to float32 with transformers and save model, tokenizer and chat template in ``folder``."""
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    from lexprobe.cache import sweep_dead_tmp, terminate_raises
    from lexprobe.outputs import open_new
    from lexprobe.provenance import model_revision

    if importlib.util.find_spec("gguf") is None:
        raise ModelError("loading a GGUF file needs the gguf package; run `pip install gguf==0.19.0`")
    where, name = str(file.parent), file.name
    try:
        with _read_once():
            tokenizer = AutoTokenizer.from_pretrained(where, gguf_file=name)
            loaded: Any = AutoModelForCausalLM.from_pretrained(where, gguf_file=name, dtype=torch.float32,
                                                               output_loading_info=True)
        model, info = loaded  # (the model and transformers' loading report)
    except (ValueError, KeyError, NotImplementedError) as err:
        raise ModelError(f"transformers cannot load GGUF file {name} (architecture {architecture(file)!r}): "
                         f"{str(err).splitlines()[0]}") from None
    from lexprobe.loaded_weights import check_complete

    check_complete(model, info, str(file), "causal")  # a tensor missing from the file would be random: refused
    # the weights are plain tensors now; without the GGUF quantizer the model saves as any other
    model.hf_quantizer = None  # type: ignore[assignment]  # (transformers' attribute; torch's Module typing lacks it)
    if hasattr(model.config, "quantization_config"):
        del model.config.quantization_config
    tmp = folder.with_name(f"{folder.name}.{os.getpid()}.tmp")
    sweep_dead_tmp(folder.parent)  # copies of killed conversions (D23)
    shutil.rmtree(tmp, ignore_errors=True)
    if os.path.islink(tmp):
        os.unlink(tmp)  # a folder of ours, made now: a link there is never written through
    tmp.parent.mkdir(parents=True, exist_ok=True)
    os.mkdir(tmp)
    restore = terminate_raises()  # SIGTERM runs the finally below: no copy is left behind
    try:
        model.save_pretrained(tmp)
        tokenizer.save_pretrained(tmp)
        files = {p.name: p.stat().st_size for p in sorted(tmp.iterdir()) if p.is_file()}
        source = {"gguf": str(file), "revision": model_revision(str(file)), "format": _CACHE_FORMAT, "files": files}
        with open_new(tmp / "source.json") as f:
            f.write(json.dumps(source, indent=1).encode("utf-8"))
        folder.parent.mkdir(parents=True, exist_ok=True)
        if folder.exists() and cache_problem(folder) is not None:
            shutil.rmtree(folder, ignore_errors=True)  # damaged, incomplete or half-made by hand: never trusted
        try:
            tmp.rename(folder)
        except OSError:  # another process finished the same conversion first: keep theirs
            if cache_problem(folder) is not None:
                raise
    except OSError as err:
        from lexprobe.outputs import disk_full

        if not disk_full(err):
            raise
        raise ModelError(f"no space left on the device to save the de-quantised copy of {name} under {folder.parent} "
                         f"({err.strerror}); the partial copy was removed: free some space (about "
                         f"{4 * sum(p.numel() for p in model.parameters()) // 2**20} MB) or set LEXPROBE_CACHE to "
                         "another disk") from None
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
        restore()
