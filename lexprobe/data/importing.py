"""``lexprobe data import``: validate a copy the user has, then copy it into the data directory.

Each dataset is checked before anything is copied: by its registry pin (gzipped copies by their decompressed
bytes), SemCor by its content digest, and every one by its reader. Files are written beside their target and
renamed, folders built beside theirs and swapped in.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from pathlib import Path

from lexprobe.data.download import sha256_of
from lexprobe.data.files import require_regular, unique_keys
from lexprobe.data.install import Say, _copy_file, _install_tree, _now, put
from lexprobe.data.pins import write_record
from lexprobe.data.registry import DATASETS, GROUPS, Dataset, data_dir, expand_names
from lexprobe.data.semcor import check_content
from lexprobe.errors import DataError


def _content_sha(path: Path) -> str:
    """SHA-256 of a file's bytes, or of its decompressed bytes for ``.gz``."""
    if path.suffix != ".gz":
        return sha256_of(path)
    import gzip

    h = hashlib.sha256()
    with gzip.open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def _check_pinned(ds: Dataset, relpath: str, src: Path) -> None:
    """A file the registry pins must match (``.gz`` copies: their decompressed content)."""
    plain = relpath[:-3] if relpath.endswith(".gz") else relpath
    pin = next((f.sha256 for f in ds.files if f.relpath == plain and f.sha256), None)
    if pin is None:
        return
    digest = _content_sha(src)
    if digest != pin:
        raise DataError(f"{src} is not the pinned {ds.title} file {Path(plain).name} "
                        f"(sha256 {digest}, expected {pin}); nothing was imported")


#: groups per POS of the official releases (the paper's Table 1; the clean files and noisy-hard read so)
CODA_PUBLISHED_GROUPS = {"clean-hard": (106, 102), "clean-easy": (274, 103), "noisy-hard": (691, 350),
                         "noisy-easy": (1188, 370)}
_CANDIDATE_KEYS = ("synset_name", "definition", "contexts", "words_in_contexts")


def check_coda_json(path: Path, expected: tuple[int, int] | None = None) -> None:
    """A CoDA21 file as the reader takes it: one JSON object (no key twice) with lists ``n``/``v`` of
    groups whose candidates carry the four fields; ``expected``: the published (noun, verb) group counts."""
    require_regular(path)
    try:
        data = json.loads(path.read_text(encoding="utf-8"), object_pairs_hook=unique_keys)
    except (OSError, ValueError, RecursionError) as err:
        raise DataError(f"{path} is not a CoDA21 JSON file ({str(err)[:120]})") from None
    shape = f'{path} is not a CoDA21 JSON file: expected {{"n": [group], "v": [group]}} with candidates'
    if not isinstance(data, dict) or not all(isinstance(data.get(pos, []), list) for pos in ("n", "v")):
        raise DataError(shape)
    groups = [g for pos in ("n", "v") for g in data.get(pos, [])]
    if not groups or not all(isinstance(g, dict) and isinstance(g.get("candidates"), list) and g["candidates"]
                             and all(isinstance(c, dict) and all(k in c for k in _CANDIDATE_KEYS)
                                     for c in g["candidates"]) for g in groups):
        raise DataError(shape)
    counts = (len(data.get("n", [])), len(data.get("v", [])))
    if expected is not None and counts != tuple(expected):
        raise DataError(f"{path} has {counts[0]} noun and {counts[1]} verb groups; the release has "
                        f"{expected[0]} and {expected[1]} (the paper's Table 1): not the official file")


def require_records(records: list, path: Path, what: str) -> None:
    """A file that parses but holds nothing the reader would use is not the dataset either."""
    if not records:
        raise DataError(f"{path} holds no {what}; not the dataset's file")


def _check_prepdefs(path: Path) -> None:
    try:
        with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as con:
            con.execute("SELECT prep, sense, def FROM prepdefs LIMIT 1").fetchall()
    except sqlite3.Error as err:
        raise DataError(f"{path} is not the PDEP inventory (prepdefs.sqlite with table prepdefs): {err}") from None


def _check_nota(path: Path) -> None:
    try:
        lines = [ln.strip() for ln in path.read_text(encoding="utf-8").splitlines() if ln.strip()]
    except (OSError, UnicodeDecodeError) as err:
        raise DataError(f"cannot read {path}: {err}") from None
    if not lines or not all(ln.count("_") >= 2 for ln in lines):
        raise DataError(f"{path} is not a none-of-the-above sense list (lines lemma_pos_sense)")


_SINGLE_FILE_DATASETS = set(GROUPS["coda21"]) | {"pdep-inventory", "ontonotes-nota"}
#: format checks by dataset name (what ``store.validator`` uses before pinning a fetched file)
FILE_CHECKS = {"pdep-inventory": _check_prepdefs, "ontonotes-nota": _check_nota}


def import_dataset(name: str, sources: list[Path], say: Say = print) -> list[str]:
    """Validate and copy a user's copy into the data directory; returns the dataset names imported."""
    sources = [Path(s).expanduser() for s in sources]
    for s in sources:
        if not s.exists():
            raise DataError(f"{s} does not exist; give the path of your copy of {name}")
        require_regular(s, f"give the path of your copy of {name}")
        _refuse_own_copy(s, name)
    names = expand_names([name])
    own = DATASETS[names[0]].importer
    if own is not None and len(names) == 1:  # a dataset declared in its own module imports itself
        own(sources, say)
        return names
    if name in GROUPS or names[0] in _SINGLE_FILE_DATASETS:
        return _import_single_files(name, names, sources, say)
    handler = {"semcor": _import_semcor, "streusle": _import_streusle, "pdep-corpus": _import_pdep_corpus,
               "ontonotes": _import_ontonotes, "wordnet": _import_wordnet, "wsd": _import_wsd}.get(names[0])
    if handler is None:  # pragma: no cover - every dataset has an importer
        raise DataError(f"{name} cannot be imported")
    handler(sources, say)
    return names


def _managed_areas() -> set[str]:
    """The data directory's folders that ``fetch`` and ``import`` write (coda21/, semcor/, ...)."""
    areas = {".lexprobe", "wordnet"}
    for ds in DATASETS.values():
        areas.update(Path(rel).parts[0] for rel in [ds.entry, *(f.relpath for f in ds.files)] if rel)
    return areas


def _refuse_own_copy(src: Path, name: str) -> None:
    """The data directory's own files are not a copy to import: it would pin whatever they hold now (a changed file
    included) as if it had been checked."""
    root = data_dir()
    try:
        rel = src.resolve().relative_to(root.resolve())
    except (ValueError, OSError, RuntimeError):
        return  # outside the data directory
    if not rel.parts or rel.parts[0] in _managed_areas():
        raise DataError(f"{src} is the data directory's own copy (under {root}), not one to import; check it "
                        f"with `lexprobe data verify {name}`, or import a copy from elsewhere")


def _import_single_files(name: str, names: list[str], sources: list[Path], say: Say) -> list[str]:
    candidates: list[Path] = []
    for s in sources:
        candidates.extend(sorted(p for p in s.iterdir() if p.is_file()) if s.is_dir() else [s])
    done = []
    for member in names:
        if name == "pdep" and member == "pdep-corpus":
            conllu = [p for p in candidates if p.suffix == ".conllu"]
            if conllu:
                _import_pdep_corpus(conllu, say)
                done.append(member)
            continue
        ds = DATASETS[member]
        f = ds.files[0]
        basename = Path(f.relpath).name
        match = [p for p in candidates if p.name == basename]
        if not match and len(names) == 1 and len(candidates) == 1:
            match = candidates  # `data import coda21-clean-hard my-copy.json`
        if not match:
            continue
        src = match[0]
        _check_pinned(ds, f.relpath, src)  # the exact release where the registry pins it (the clearer message)
        if member.startswith("coda21"):
            check_coda_json(src, expected=CODA_PUBLISHED_GROUPS.get(member[len("coda21-"):]))
        else:
            FILE_CHECKS[member](src)
        _copy_file(src, data_dir() / f.relpath)
        digest = sha256_of(data_dir() / f.relpath)
        _record_import(member, ds.entry, {f.relpath: digest}, src, say, pinned_now=[] if f.sha256 else [f.relpath])
        done.append(member)
    if not done:
        wanted = ", ".join(Path(DATASETS[m].files[0].relpath).name for m in names if DATASETS[m].files)
        raise DataError(f"no file of {name} in {', '.join(map(str, sources))}; expected {wanted}")
    return done


def _record_import(name: str, entry: str, files: dict, src: Path, say: Say, pinned_now=(), **extra) -> None:
    write_record(name, entry, files, f"import {src.resolve()}", pinned_now, imported=_now(), **extra)
    say(f"{name}: imported {src} -> {data_dir() / entry}")


def _install_copies(dest: Path, copies: list[tuple[Path, str | Path]]) -> None:
    """Copy each ``(source, relpath)`` into a folder built beside ``dest`` and swapped in."""
    def fill(tmp: Path) -> None:
        for src, rel in copies:
            put(tmp, rel, src)

    _install_tree(dest, fill)


def _semcor_source(src: Path, say: Say) -> Path:
    """A folder as SemCor is shipped (its one archive beside a README and a licence) means that archive."""
    if src.is_dir() and not any(src.rglob("*.naf")):
        archives = [p for p in sorted(src.iterdir()) if p.is_file() and p.name.endswith((".tar.xz", ".tar.gz", ".tgz", ".tar"))]
        if len(archives) == 1:
            say(f"importing {archives[0]}, the SemCor archive in {src}")
            return archives[0]
    return src


def _import_semcor(sources: list[Path], say: Say) -> None:
    ds = DATASETS["semcor"]
    src = _semcor_source(sources[0], say)
    check_content(src)
    if src.is_dir():
        from lexprobe.data.semcor import iter_naf_members

        def fill(tmp: Path) -> None:
            for rel, data in iter_naf_members(src):
                put(tmp, rel, data)

        _install_tree(data_dir() / "semcor" / "tree", fill)
        entry, files = "semcor/tree/semcor3.0", {}
    else:
        entry = f"semcor/{src.name}"
        _copy_file(src, data_dir() / entry)
        files = {entry: sha256_of(data_dir() / entry)}
    _record_import("semcor", entry, files, src, say, content_sha256=ds.content_sha256)


_STREUSLE_PATTERNS = ("*.json", "*.json.gz", "*.conllulex", "*.conllulex.gz", "*.vis", "*.vis.gz")


def _import_streusle(sources: list[Path], say: Say) -> None:
    from lexprobe.data.streusle import read_split

    ds = DATASETS["streusle"]
    src = sources[0]
    if not src.is_dir():
        raise DataError(f"{src} is not a folder; give the streusle-4.4 folder (with train/, dev/, test/)")
    chosen: list[tuple[Path, str]] = []
    for split in ("train", "dev", "test"):
        read_split(src, split, lemmatize=False)  # format check: raises on missing or malformed files
        for pattern in _STREUSLE_PATTERNS:
            for p in sorted((src / split).glob(pattern)):
                if ".govobj." in p.name or ".autoid." in p.name:
                    continue
                rel = f"streusle-4.4/{split}/{p.name}"
                _check_pinned(ds, rel, p)
                chosen.append((p, rel))
    _install_copies(data_dir() / "streusle-4.4", [(p, rel.split("/", 1)[1]) for p, rel in chosen])
    files = {rel: sha256_of(data_dir() / rel) for _, rel in chosen}
    _record_import("streusle", ds.entry, files, src, say)


def _import_pdep_corpus(sources: list[Path], say: Say) -> None:
    from lexprobe.data.pdep import conllu_files, read_pdep

    files = [f for s in sources for f in conllu_files(s)]
    for f in files:
        read_pdep(f)  # format and split-name check
    names = [f.name for f in files]
    if len(set(names)) != len(names):
        raise DataError(f"two PDEP files share a name ({', '.join(names)}); import them one folder at a time")
    _install_copies(data_dir() / "pdep" / "corpus", [(f, f.name) for f in files])
    recorded = {f"pdep/corpus/{n}": sha256_of(data_dir() / "pdep" / "corpus" / n) for n in names}
    _record_import("pdep-corpus", "pdep/corpus", recorded, sources[0], say, pinned_now=list(recorded))


def _import_ontonotes(sources: list[Path], say: Say) -> None:
    from lexprobe.data.ontonotes import conll_files, read_ontonotes

    src = sources[0]
    files = conll_files(src)
    read_ontonotes(files[0], nota=set(), split=None if src.is_dir() else "test")
    base = src if src.is_dir() else src.parent
    _install_copies(data_dir() / "ontonotes" / "conll-2012", [(f, f.relative_to(base)) for f in files])
    say(f"ontonotes: {len(files)} CoNLL-2012 files")
    _record_import("ontonotes", "ontonotes/conll-2012", {}, src, say)


def _import_wordnet(sources: list[Path], say: Say) -> None:
    from lexprobe.data.wordnet import REQUIRED_FILES, lexnames_text

    src = sources[0]
    missing = [f for f in REQUIRED_FILES if not (src / f).is_file()]
    if missing:
        raise DataError(f"{src} is not a WordNet 3.0 dict folder (missing {', '.join(missing)})")

    def fill(tmp: Path) -> None:
        for item in src.iterdir():
            if item.is_file():
                put(tmp, item.name, item.resolve())
        if not (tmp / "lexnames").exists():
            put(tmp, "lexnames", lexnames_text())

    _install_tree(data_dir() / "wordnet" / "dict", fill)
    _record_import("wordnet", "wordnet/dict", {}, src, say)
    from lexprobe.data import wordnet

    wordnet.load_wordnet.cache_clear()


#: files of the WSD framework that are copied when present (the benchmark reads neither)
_WSD_OPTIONAL = ("README", "Scorer.java")


def _wsd_root(src: Path, say: Say) -> Path:
    """The framework's folder: ``src`` itself when it holds the sets, else its one subfolder that does (the
    unzipped release's ``WSD_Unified_Evaluation_Datasets/``, a GlossBERT checkout's ``Evaluation_Datasets/``)."""
    from lexprobe.data.wsd import ALL, set_files

    def holds_sets(folder: Path) -> bool:
        return set_files(folder, ALL)[0].is_file()

    if not src.is_dir():
        raise DataError(f"{src} is not a folder; give the framework's folder (ALL/, senseval2/, ... semeval2015/)")
    if holds_sets(src):
        return src
    inside = [p for p in sorted(src.iterdir()) if p.is_dir() and holds_sets(p)]
    if len(inside) == 1:
        say(f"importing {inside[0]}, the WSD framework's folder in {src}")
        return inside[0]
    raise DataError(f"{src} does not hold the WSD framework (no ALL/ALL.data.xml); give the folder with ALL/, "
                    "senseval2/, senseval3/, semeval2007/, semeval2013/ and semeval2015/")


def _import_wsd(sources: list[Path], say: Say) -> None:
    """The pinned data and gold files of the five sets and ALL, read by the reader (published counts, ALL = the
    five concatenated), then copied in as one folder."""
    from lexprobe.data.wsd import check_framework

    ds = DATASETS["wsd"]
    root = _wsd_root(sources[0], say)
    chosen: list[tuple[Path, str]] = []
    for f in ds.files:
        inner = f.relpath.split("/", 1)[1]
        src = root / inner
        optional = inner in _WSD_OPTIONAL
        if not src.is_file():
            if optional:
                continue
            raise DataError(f"{root} has no {inner}; give the framework's folder (ALL/, senseval2/, ... each "
                            "with its .data.xml and .gold.key.txt)")
        require_regular(src, "give the framework's files")
        if optional and _content_sha(src) != f.sha256:
            say(f"wsd: {src} is not the pinned {inner}; not imported (lexprobe does not read it)")
            continue
        _check_pinned(ds, f.relpath, src)
        chosen.append((src, f.relpath))
    check_framework(root)
    _install_copies(data_dir() / ds.entry, [(src, rel.split("/", 1)[1]) for src, rel in chosen])
    files = {rel: sha256_of(data_dir() / rel) for _, rel in chosen}
    _record_import("wsd", ds.entry, files, root, say)
