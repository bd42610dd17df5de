"""MCL-WiC (Martelli, Kalach, Tola & Navigli, SemEval-2021 Task 2): the dataset, in one module.

What it is: a lemma in two sentences, each with the target's character offsets, and whether it means the same in
both (``T``/``F``), for English, Arabic, French, Russian and Chinese (multilingual: ``en-en`` ... ``zh-zh``) and for
English paired with each of the others (cross-lingual: ``en-ar`` ... ``en-zh``): training (``en-en``, 8,000 pairs),
dev (the multilingual pairs, 1,000 each), test (all nine, 1,000 each; gold released after the task). JSON ``.data``
files (``id``, ``lemma``, ``pos``, ``sentence1``/``2``, offsets ``start1``/``end1``/``start2``/``end2``; the
cross-lingual test files give ``ranges1``/``ranges2`` as ``"a-b"`` or ``"a-b,c-d"``, a discontinuous target) and
``.gold`` files (``id``, ``tag``). Licence CC BY-NC 4.0: not shipped; ``lexprobe data fetch mcl-wic`` downloads the
two official zips at the pinned commit and unpacks them, ``lexprobe data import mcl-wic DIR|ZIP...`` takes a copy
one has; either way every file is checked against its SHA-256 before it is put in the data directory.

Everything the data layer needs of it is declared on its ``Dataset`` record (``check``, ``importer``, ``unpack``),
so no other module names it.
"""

from __future__ import annotations

import hashlib
import unicodedata
import zipfile
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any, Callable

from lexprobe.data.registry import Dataset, RemoteFile, data_dir, register_dataset
from lexprobe.errors import DataError

NAME = "mcl-wic"
COMMIT = "30d05d85a9902081bec8ca2eb2ba552e7570b1e7"
UPSTREAM = "github.com/SapienzaNLP/mcl-wic"
#: the official zips at the commit (their digests are pinned on first fetch; every member's is pinned below)
ARCHIVES = ("SemEval-2021_MCL-WiC_all-datasets.zip", "SemEval-2021_MCL-WiC_test-gold-data.zip")
MULTILINGUAL = ("en-en", "ar-ar", "fr-fr", "ru-ru", "zh-zh")
CROSSLINGUAL = ("en-ar", "en-fr", "en-ru", "en-zh")
#: the language pairs of each split
SPLITS = {"training": ("en-en",), "dev": MULTILINGUAL, "test": MULTILINGUAL + CROSSLINGUAL}
LANGUAGES = ("en", "ar", "fr", "ru", "zh")

#: every file of the release lexprobe reads, under the dataset's folder: (SHA-256, bytes)
FILES: dict[str, tuple[str, int]] = {
    "training/training.en-en.data": ("a99de9950f52ca2b3c982a22fd5deb094bd93b38de3b6217bc304768be595c3e", 4_310_373),
    "training/training.en-en.gold": ("c23872e031192665fb9919a33056a16c53a8d397703152f68f50d7c64d1208fe", 550_893),
    "dev/multilingual/dev.ar-ar.data": ("5654da871a264f402a3651f6eae74a298d7a2ee54cd3dce6d427f6c98812340c", 720_022),
    "dev/multilingual/dev.ar-ar.gold": ("c592de68c9dece449791b95563969851f56a1be56b549bd484797a1d97409dec", 62_893),
    "dev/multilingual/dev.en-en.data": ("54b90966d29cc47c12e2790514f7019155d3203c4871b17999762672cc197cee", 514_737),
    "dev/multilingual/dev.en-en.gold": ("3b52abbe9c81e72d74348b8877ad0b23cd6ff6246d03471c9ceeb526a49f5486", 62_893),
    "dev/multilingual/dev.fr-fr.data": ("a8c5f00775ff1428bea52afa5684d2eec942b221450b211732f002732c43e131", 534_356),
    "dev/multilingual/dev.fr-fr.gold": ("ba08b95dc8010020e7cc753ecff8d5b9d3138f8192339edc8c3988c2c0d5d5b7", 62_893),
    "dev/multilingual/dev.ru-ru.data": ("afc9599594339f15613516d5f27c5414da70b411ab3fd40395a57bc0ec232544", 811_062),
    "dev/multilingual/dev.ru-ru.gold": ("e247dc272af7522eabfbf5549462eb781154509834b1cba8a1d3c8b98939b11e", 62_893),
    "dev/multilingual/dev.zh-zh.data": ("9fe79d2649031cf7834bcdcff45d01b7c537c55ca417043d59b1ab798af83624", 488_302),
    "dev/multilingual/dev.zh-zh.gold": ("2779df7d4fb779604caadfac1796284a03957293fc9c5fa62113c1c1f54328fe", 62_893),
    "test/multilingual/test.ar-ar.data": ("cdee569f983b63b5b05fc4d38b159513b33daa879113b6fc705e7c71e02ab1b0", 652_851),
    "test/multilingual/test.en-en.data": ("a35c8887c8e37620c8e45bdae18c60f7286c1a090f5e75846cde43d07305d458", 533_139),
    "test/multilingual/test.fr-fr.data": ("da84c1d32bb0b448e9d01842004d77477d47b27e90d9036626d2bbe5207534c7", 524_851),
    "test/multilingual/test.ru-ru.data": ("c774ddfa21e63a5f2d87761f308813e16a9f8e7c9f6b10aa788a6c4915d0bb9c", 781_405),
    "test/multilingual/test.zh-zh.data": ("a5276c89a815eb03ab99c3e558c74fda9bd4fdcbcd2b2fe92e009435da8817d9", 497_532),
    "test/crosslingual/test.en-ar.data": ("a78ef7ac802ef2b85e6eb56e88fdb421090645d414713756a931ee13e8947602", 581_246),
    "test/crosslingual/test.en-fr.data": ("457fe4814cf650abbbc96acf9a479c8f3eb40660234a0bdff2df85ca5483219d", 528_905),
    "test/crosslingual/test.en-ru.data": ("deda37c1d8f36c288553bd96aeedd648b5bae01dcbd35c253969ec880f5e40ef", 672_769),
    "test/crosslingual/test.en-zh.data": ("b833127b4a988467166bf05bd6cc9de1a6d84f01a816d45c3f69332c17abd36d", 473_738),
    "test-gold/test.ar-ar.gold": ("f5296d001b25d81971d4ce8f75e4d930930536525678d9f5858fabf7844b7434", 63_893),
    "test-gold/test.en-ar.gold": ("a6dd5408f5c759c39a55feb950edd930e6f1a121d64b15a9ae5b9a33efef3dfb", 63_893),
    "test-gold/test.en-en.gold": ("5213f417f38bd5f4458aee84b252ea38cba7119e5b9902ae91e4b0075a255f47", 63_893),
    "test-gold/test.en-fr.gold": ("1669a4afd1576fa1ad73fae44c8b91b450dd64968bd598ec5e01697bc6f53971", 63_892),
    "test-gold/test.en-ru.gold": ("03f23e10319f37170abc1c06361b1b544d329ed1568161f94f728531fe4d5673", 63_892),
    "test-gold/test.en-zh.gold": ("a08d46d35ba0755e2571b4e5d77139a1e3db87b9e88b3ef016bb319ddb26b9bf", 63_893),
    "test-gold/test.fr-fr.gold": ("ecd268370d524c70f77d6803e94e3b554a0cd90f1ffd870c2784d8d58dc84d86", 63_893),
    "test-gold/test.ru-ru.gold": ("fda8d5a42295dcc46ec0957ca7dfbd12085ad12bdbb0ed7f9241721eb001583c", 63_893),
    "test-gold/test.zh-zh.gold": ("61c016bc5f1f1f44e0b297001a4caf539593e0037621a61a9efd291a74a2be09", 63_893),
    "LICENSE.txt": ("5cb824eba69d44c08596e9efebefbeabc4213613f649ea39b8c02641eb5b4833", 21_500),
}
_BY_NAME = {Path(rel).name: rel for rel in FILES}
FETCH = f"`lexprobe data fetch {NAME}` (or `lexprobe data import {NAME} DIR` for a copy you have)"


def set_files(split: str, pair: str) -> tuple[str, str]:
    """(data, gold) of a split's language pair, relative to the dataset's folder."""
    if pair not in SPLITS.get(split, ()):
        raise DataError(f"MCL-WiC has no {split} set for {pair}; {split} has {', '.join(SPLITS.get(split, ())) or 'none'}"
                        f" (splits: {', '.join(SPLITS)})")
    if split == "training":
        return "training/training.en-en.data", "training/training.en-en.gold"
    if split == "dev":
        return f"dev/multilingual/dev.{pair}.data", f"dev/multilingual/dev.{pair}.gold"
    kind = "multilingual" if pair in MULTILINGUAL else "crosslingual"
    return f"test/{kind}/test.{pair}.data", f"test-gold/test.{pair}.gold"


def folder() -> Path:
    from lexprobe.data.locations import entry_path

    return entry_path(NAME)


def official(split: str, pair: str) -> tuple[Path, Path]:
    """The pinned files of a split's language pair in the data directory; one line when they are missing or not the
    pinned bytes."""
    found = []
    for rel in set_files(split, pair):
        path = folder() / rel
        if not path.is_file():
            raise DataError(f"MCL-WiC's {rel} is not in the data directory {data_dir()}; run {FETCH}")
        if _sha256(path.read_bytes()) != FILES[rel][0]:
            raise DataError(f"{path} is not the pinned MCL-WiC file (SHA-256 differs); restore it with {FETCH}")
        found.append(path)
    return found[0], found[1]


# --- reading and checking ---------------------------------------------------------------------------------------

@dataclass(frozen=True)
class RawPair:
    """One pair as the release gives it: each target as its character ranges in its sentence."""

    id: str
    lemma: str
    pos: str
    sentence1: str
    ranges1: tuple[tuple[int, int], ...]
    sentence2: str
    ranges2: tuple[tuple[int, int], ...]
    same: bool


def read_pairs(data: Path, gold: Path, strict_spans: bool = True) -> list[RawPair]:
    """The pairs of a ``.data`` file with their ``.gold`` labels, checked: every field there and typed, offsets
    inside their sentence and (``strict_spans``: a file that is not the pinned release) not cutting a word where the
    script separates words, ids unique, a gold label for every pair and none for a pair not there. One line naming
    the file and the pair otherwise."""
    from lexprobe.data.files import read_json

    fix = "give MCL-WiC's .data file and its .gold file (the official release's format)"
    records = read_json(data, fix)
    labels = read_json(gold, fix)
    if not isinstance(records, list) or not all(isinstance(r, dict) for r in records):
        raise DataError(f"{data} is not an MCL-WiC .data file (a JSON list of pairs); {fix}")
    if not isinstance(labels, list) or not all(isinstance(g, dict) for g in labels):
        raise DataError(f"{gold} is not an MCL-WiC .gold file (a JSON list of {{id, tag}}); {fix}")
    tags: dict[str, bool] = {}
    for g in labels:
        if not isinstance(g.get("id"), str) or g.get("tag") not in ("T", "F"):
            raise DataError(f"{gold}: entry {g.get('id')!r} is not {{\"id\": ..., \"tag\": \"T\" or \"F\"}}; {fix}")
        if g["id"] in tags:
            raise DataError(f"{gold}: pair {g['id']!r} has two gold labels; {fix}")
        tags[g["id"]] = g["tag"] == "T"
    out, seen = [], set()
    for r in records:
        pair = _pair(r, data, tags, strict_spans, fix)
        if pair.id in seen:
            raise DataError(f"{data}: pair {pair.id!r} appears twice; {fix}")
        seen.add(pair.id)
        out.append(pair)
    extra = sorted(set(tags) - seen)
    if extra:
        raise DataError(f"{gold}: pair {extra[0]!r} has a gold label but is not in {data.name}; give the gold file of "
                        f"the same set")
    if not out:
        raise DataError(f"{data} holds no pairs; {fix}")
    return out


def _pair(r: dict, data: Path, tags: dict[str, bool], strict: bool, fix: str) -> RawPair:
    pid = r.get("id")
    where = f"{data}: pair {pid!r}"
    for key in ("id", "lemma", "pos", "sentence1", "sentence2"):
        if not isinstance(r.get(key), str) or not r[key]:
            raise DataError(f"{where} has no {key} (a non-empty string); {fix}")
    ranges = []
    for k in ("1", "2"):
        text = r[f"sentence{k}"]
        spans = _ranges(r, k, where, fix)
        for a, b in spans:
            if not 0 <= a < b <= len(text):
                raise DataError(f"{where}: offsets {a}-{b} of sentence{k} are not inside its {len(text)} characters; "
                                f"{fix}")
            if strict and _cuts_a_word(text, a, b):
                raise DataError(f"{where}: offsets {a}-{b} of sentence{k} cut a word ({text[max(0, a - 8):b + 8]!r}):"
                                f" offsets off by one? {fix}")
        ranges.append(spans)
    if pid not in tags:
        raise DataError(f"{where} has no gold label in the .gold file; give the gold file of the same set")
    return RawPair(pid, r["lemma"], r["pos"], r["sentence1"], ranges[0], r["sentence2"], ranges[1], tags[pid])


def _ranges(r: dict, k: str, where: str, fix: str) -> tuple[tuple[int, int], ...]:
    """A target's ranges: ``start<k>``/``end<k>`` (numbers or digit strings), or ``ranges<k>`` ``"a-b[,c-d]"``."""
    try:
        if f"ranges{k}" in r:
            return tuple((int(a), int(b)) for a, b in (part.split("-") for part in str(r[f"ranges{k}"]).split(",")))
        return ((_offset(r[f"start{k}"]), _offset(r[f"end{k}"])),)
    except (KeyError, ValueError, TypeError):
        raise DataError(f"{where} has no offsets of sentence{k} (start{k}/end{k}, or ranges{k} \"a-b\"); {fix}") from None


def _offset(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, str)) or (isinstance(value, str) and not value.isdigit()):
        raise ValueError(value)
    return int(value)


def _letter(ch: str) -> bool:
    return unicodedata.category(ch)[0] in "LMN"


def _unspaced(ch: str) -> bool:
    """A character of a script written without spaces between words (Han, kana, Thai...)."""
    name = unicodedata.name(ch, "")
    return name.startswith(("CJK", "HIRAGANA", "KATAKANA", "THAI", "LAO", "KHMER", "MYANMAR"))


def _cuts_a_word(text: str, a: int, b: int) -> bool:
    """Whether ``[a, b)`` starts or ends inside a word (not where words are written without spaces)."""
    inside_start = a > 0 and _letter(text[a - 1]) and _letter(text[a]) and not _unspaced(text[a])
    inside_end = b < len(text) and _letter(text[b]) and _letter(text[b - 1]) and not _unspaced(text[b - 1])
    return inside_start or inside_end or text[a].isspace() or text[b - 1].isspace()


def check_file(path: Path, relpath: str) -> None:
    """A fetched file's format before it is pinned: an official zip holding the release's files."""
    _members(path)


# --- fetch and import ----------------------------------------------------------------------------------------------

def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _members(archive: Path) -> dict[str, zipfile.ZipInfo]:
    """The release's files in an official zip, by their path in the dataset's folder (members matched by file name,
    whatever folder the zip puts them in; a member larger than its pinned size is not read)."""
    try:
        with zipfile.ZipFile(archive) as z:
            infos = z.infolist()
    except (zipfile.BadZipFile, OSError, ValueError) as err:
        raise DataError(f"{archive} is not one of MCL-WiC's zips ({err}); run {FETCH}") from None
    found: dict[str, zipfile.ZipInfo] = {}
    for info in infos:
        rel = _BY_NAME.get(Path(info.filename).name)
        if rel is None or info.is_dir():
            continue
        if info.file_size != FILES[rel][1] or rel in found:
            raise DataError(f"{archive}: member {info.filename} is not the release's {Path(rel).name} (size "
                            f"{info.file_size:,}, pinned {FILES[rel][1]:,}, or found twice); nothing was unpacked")
        found[rel] = info
    if not found:
        raise DataError(f"{archive} holds no file of the MCL-WiC release; run {FETCH}")
    return found


def _collect(sources: list[Path]) -> dict[str, Callable[[], bytes]]:
    """Each release file found in ``sources`` (folders as unpacked, or the zips), as a reader of its bytes."""
    found: dict[str, Callable[[], bytes]] = {}
    for src in sources:
        if src.is_dir():
            for path in sorted(p for p in src.rglob("*") if p.is_file()):
                rel = _BY_NAME.get(path.name)
                if rel is not None:
                    found.setdefault(rel, path.read_bytes)
        else:
            for rel, info in _members(src).items():
                found.setdefault(rel, partial(_member_bytes, src, info))
    return found


def _member_bytes(archive: Path, info: zipfile.ZipInfo) -> bytes:
    with zipfile.ZipFile(archive) as z:
        return z.read(info)


def _install(found: dict[str, Callable[[], bytes]], source: str, say: Callable[[str], None]) -> None:
    """Check every release file against its pin, then put them in the dataset's folder (built beside it and
    swapped in) and record them."""
    from lexprobe.data.install import _install_tree, _now, put
    from lexprobe.data.pins import write_record

    missing = [rel for rel in FILES if rel not in found]
    if missing:
        raise DataError(f"MCL-WiC's {missing[0]} is not in {source} ({len(missing)} of {len(FILES)} files missing); "
                        "give the unpacked release folder, or both zips (all-datasets and test-gold-data)")
    contents = {}
    for rel, read in found.items():
        data = read()
        if _sha256(data) != FILES[rel][0]:
            raise DataError(f"{rel} in {source} is not the pinned MCL-WiC file (SHA-256 {_sha256(data)[:16]}..., "
                            f"pinned {FILES[rel][0][:16]}...); nothing was imported")
        contents[rel] = data

    def fill(tmp: Path) -> None:
        for rel, data in contents.items():
            put(tmp, rel, data)

    _install_tree(data_dir() / NAME, fill)
    write_record(NAME, NAME, {f"{NAME}/{rel}": FILES[rel][0] for rel in contents}, source, [], imported=_now())
    say(f"{NAME}: {len(contents)} files checked and put in {data_dir() / NAME}")


def import_from(sources: list[Path], say: Callable[[str], None]) -> None:
    """``lexprobe data import mcl-wic DIR|ZIP...``: the unpacked release, or its zips."""
    _install(_collect([Path(s) for s in sources]), ", ".join(map(str, sources)), say)


def unpack(say: Callable[[str], None]) -> None:
    """After ``lexprobe data fetch``: the zips' members checked and put in the dataset's folder."""
    _install(_collect([data_dir() / f.relpath for f in DATASET.files]), "the fetched zips", say)


DATASET = register_dataset(Dataset(
    name=NAME, title="MCL-WiC (SemEval-2021 Task 2): multilingual and cross-lingual word-in-context",
    version=COMMIT[:7], upstream=UPSTREAM, pin=COMMIT, upstream_path=", ".join(ARCHIVES),
    licence="CC BY-NC 4.0 (research use, attribution)",
    reader_format="JSON .data (id, lemma, pos, sentence1/2, offsets) and .gold (id, tag T/F)",
    files=tuple(RemoteFile(f"{NAME}-archives/{a}", f"https://raw.githubusercontent.com/SapienzaNLP/mcl-wic/{COMMIT}/{a}")
                for a in ARCHIVES),
    entry=NAME, redistributable=False, check=check_file, importer=import_from, unpack=unpack,
    notes="the zips are pinned on first fetch; every file unpacked from them is pinned here",
))
