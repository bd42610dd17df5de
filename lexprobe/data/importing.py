"""``lexprobe data import``: validate a copy the user has, then copy it into the data directory.

Each dataset is checked before anything is copied: by its pins (gzipped copies by their decompressed bytes), SemCor
by its content digest, and every one by its reader. A dataset with an importer of its own (a folder of files, an
archive) imports itself; one of a single file (a CoDA21 release, the PDEP inventory) is matched by its file name
among the paths given and checked by its dataset's own check; a group (``coda21``, ``pdep``) imports each member
found among them. Files are written beside their target and renamed, folders built beside theirs and swapped in.
"""

from __future__ import annotations

from pathlib import Path

from lexprobe.data import catalog  # noqa: F401  (registers the datasets lexprobe ships)
from lexprobe.data.download import sha256_of
from lexprobe.data.files import require_regular
from lexprobe.data.install import Say, _copy_file
from lexprobe.data.pins import check_pinned, record_import
from lexprobe.data.registry import DATASETS, GROUPS, Dataset, data_dir, expand_names
from lexprobe.errors import DataError


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
    if name not in GROUPS and own is not None:  # a dataset that imports itself
        if own(sources, say) is False:
            raise DataError(f"no file of {name} in {', '.join(map(str, sources))}")
        return names
    candidates: list[Path] = []
    for s in sources:
        candidates.extend(sorted(p for p in s.iterdir() if p.is_file()) if s.is_dir() else [s])
    done = [member for member in names if _import_member(DATASETS[member], candidates, len(names) == 1, say)]
    if not done:
        wanted = ", ".join(Path(DATASETS[m].files[0].relpath).name for m in names if DATASETS[m].files)
        raise DataError(f"no file of {name} in {', '.join(map(str, sources))}; expected {wanted}")
    return done


def _import_member(ds: Dataset, candidates: list[Path], alone: bool, say: Say) -> bool:
    """One dataset among the files given (a group's member, or a dataset of one file): imported when found."""
    if ds.importer is not None:  # a member with files of its own kind (the PDEP corpus's .conllu files)
        return ds.importer(candidates, say) is not False
    if not ds.files:
        raise DataError(f"{ds.name} cannot be imported")  # pragma: no cover - every dataset has files or an importer
    f = ds.files[0]
    match = [p for p in candidates if p.name == Path(f.relpath).name]
    if not match and alone and len(candidates) == 1:
        match = candidates  # `data import coda21-clean-hard my-copy.json`
    if not match:
        return False
    src = match[0]
    check_pinned(ds, f.relpath, src)  # the exact release where it is pinned (the clearer message)
    if ds.check is not None:
        ds.check(src, f.relpath)
    _copy_file(src, data_dir() / f.relpath)
    digest = sha256_of(data_dir() / f.relpath)
    record_import(ds.name, ds.entry, {f.relpath: digest}, src, say, pinned_now=[] if f.sha256 else [f.relpath])
    return True


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
