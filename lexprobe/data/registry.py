"""What a dataset is (``Dataset``): version, upstream (repository, commit or tag, path), pinned URLs (never a moving
branch), licence, size and SHA-256 of each file, and its own ways (hooks); each is declared once, in its own module
(``data/semcor.py``, ``data/wsd.py`` ...; ``data.catalog`` imports lexprobe's), which registers it here.

A checksum is ``None`` where the file was not available when the registry was written: it is pinned on first
fetch (recorded in the data directory, checked from then on). SemCor is also pinned by content
(``content_sha256``, see ``naf_content_digest``), whatever its packaging. ``$LEXPROBE_DATA_MIRROR``
(http(s):// or file://) replaces the upstream hosts: ``https://HOST/PATH`` is fetched from ``<mirror>/HOST/PATH``.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Callable
from urllib.parse import urlsplit

from lexprobe.data_home import data_dir  # noqa: F401  (the data layer's name for it)
from lexprobe.errors import DataError


@dataclass(frozen=True)
class RemoteFile:
    """One file of a dataset: where it lives in the data directory and where it comes from."""

    relpath: str  # relative to the data directory
    url: str | None  # pinned upstream URL (None: cannot be downloaded)
    sha256: str | None = None  # None: pinned on first fetch
    size: int | None = None  # bytes, where known


@dataclass(frozen=True)
class Dataset:
    name: str
    title: str
    version: str
    upstream: str  # repository or distributor
    pin: str  # commit, tag or release
    upstream_path: str
    licence: str
    reader_format: str
    files: tuple[RemoteFile, ...] = ()
    entry: str = ""  # what readers take, relative to the data directory (file or folder)
    method: str = "http"  # http | nltk | import-only
    content_sha256: str | None = None  # format-independent digest (SemCor NAF documents)
    redistributable: bool = True
    notes: str = ""
    #: a dataset brings its own ways, declared in its module, so the data layer never branches on its name:
    #: ``check(path, relpath)`` one file's format (before anything is pinned or imported); ``importer(sources, say)``
    #: ``lexprobe data import`` of it (False: nothing of it among ``sources``, in a group's import); ``unpack(say)``
    #: what readers open made from the files just fetched; ``fetcher(progress, force, say)`` a download of its own
    #: (``method`` "nltk"); ``locate()`` where it is when not at its entry; ``system()`` a copy installed outside the
    #: data directory (nothing to verify); ``override()`` the path an environment variable gives its entry
    check: Callable[[Path, str], None] | None = None
    importer: Callable[[list[Path], Callable[[str], None]], bool | None] | None = None
    unpack: Callable[[Callable[[str], None]], None] | None = None
    fetcher: Callable[[bool, bool, Callable[[str], None]], Path] | None = None
    locate: Callable[[], Path | None] | None = None
    system: Callable[[], Path | None] | None = None
    override: Callable[[], Path | None] | None = None

    @property
    def size(self) -> int | None:
        sizes = [f.size for f in self.files]
        if sizes and all(s is not None for s in sizes):
            return sum(sizes)  # type: ignore[arg-type]
        return None

    @property
    def pinned_on_first_fetch(self) -> list[RemoteFile]:
        return [f for f in self.files if f.sha256 is None]

    @property
    def fetch_command(self) -> str:
        if self.method == "import-only":
            return f"lexprobe data import {self.name} PATH"
        return f"lexprobe data fetch {self.name}"


def github_raw(repo: str, pin: str, path: str) -> str:
    """The pinned raw URL of a file of a GitHub repository at a commit or tag."""
    return f"https://raw.githubusercontent.com/{repo}/{pin}/{path}"


#: every dataset by name, filled by the modules that declare them (``register_dataset``): ``data.catalog`` imports
#: lexprobe's own, a benchmark's package its own
DATASETS: dict[str, Dataset] = {}
#: names that stand for several datasets on the command line (``register_group``)
GROUPS: dict[str, tuple[str, ...]] = {}


def register_dataset(ds: Dataset) -> Dataset:
    """Add a dataset, declared in a module of its own, by its name; returns it."""
    DATASETS[ds.name] = ds
    return ds


def register_group(name: str, members: tuple[str, ...]) -> None:
    """A name that stands for several registered datasets on the command line (``coda21``: its four files)."""
    GROUPS[name] = tuple(members)


def expand_names(names) -> list[str]:
    """Dataset names with groups expanded, in order, without repeats; unknown names are an error."""
    out: list[str] = []
    for name in names:
        for m in GROUPS.get(name, (name,)):
            if m not in DATASETS:
                choices = ", ".join([*DATASETS, *GROUPS])
                raise DataError(f"unknown dataset {name!r}; choose one of {choices} (see `lexprobe data list`)")
            if m not in out:
                out.append(m)
    return out


def mirror_url(url: str, mirror: str | None = None) -> str:
    """The URL to fetch: ``url`` itself, or ``<mirror>/<host>/<path>`` under ``$LEXPROBE_DATA_MIRROR``."""
    mirror = os.environ.get("LEXPROBE_DATA_MIRROR", "") if mirror is None else mirror
    if not mirror:
        return url
    if not mirror.startswith(("http://", "https://", "file://")):
        raise DataError(f"LEXPROBE_DATA_MIRROR={mirror!r} must start with http://, https:// or file://")
    parts = urlsplit(url)
    return f"{mirror.rstrip('/')}/{parts.netloc}{parts.path}"
