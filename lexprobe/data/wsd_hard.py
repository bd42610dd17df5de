"""Maru, Conia, Bevilacqua & Navigli's WSD release (ACL 2022, "Nibbling at the Hard Core of Word Sense
Disambiguation"): its five sets and the published systems' answers, in one module.

What it is: five sets in the framework's format (``wsd_hard_benchmark/<set>/<set>.{data.xml,gold.key.txt}``) —
ALLamended (ALL with its lexical and semantic errors fixed, without SemEval-2007: 4,917 instances), S10amended
(SemEval-2010, 955), 42D (rare and unseen senses, 370), hardEN (the 476 instances of those three that none of the
systems studied solves) and softEN (the other 5,766) — and the answers of the systems the paper studies
(``evaluation/predictions/<set>/<system>-predictions[.<set>].key.txt``): ESCHER, BEM, EWISER, ARES, GlossBERT,
Generationary and SyntagRank on every set but hardEN, and LMMS on ALL only. Licence CC BY-NC 4.0: not shipped;
``lexprobe data fetch wsd-hard`` downloads each file from the pinned commit, ``lexprobe data import wsd-hard DIR``
takes a checkout or unzipped archive one has; either way every file is checked against its SHA-256.

Why here: the five sets are official sets of the framework's reader (``data.wsd.register_set``), so ``--data
ALLamended`` reads them with the same reader, checks and candidates as ALL; and a run on ALL or these sets can put
each published system's answers on exactly the instances it scored (``release_answers``), which the WSD
benchmark turns into rows and paired comparisons. A released answer file's own faults (ids that are not the set's,
lines without a key) are skipped and counted by fault, never a silent gap; hardEN, for which the release holds no
answers of the seven systems, takes them from the three sets its instances come from (same ids, lemmas,
sentences and gold: ``tests/data/test_wsd_hard.py`` checks it).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from lexprobe.data.registry import Dataset, RemoteFile, data_dir, github_raw, register_dataset
from lexprobe.data.wsd import (
    DATA_SUFFIX,
    GOLD_SUFFIX,
    OFFICIAL,
    SETS,
    OfficialSet,
    WsdInstance,
    read_key_file,
    read_text,
    read_wsd,
    register_set,
)
from lexprobe.data.wsd_xml import read_targets
from lexprobe.errors import DataError
from lexprobe.metrics.wsd import AnswerFaults, parse_answer_lines

NAME = "wsd-hard"
REPO = "SapienzaNLP/wsd-hard-benchmark"
COMMIT = "74ff055519b3c426330df9974a6603a0e638a3db"
LICENCE = "CC BY-NC 4.0 (research use, attribution: cite Maru et al. 2022)"
CITATION = "Maru, Conia, Bevilacqua & Navigli, ACL 2022"

#: the release's sets in the paper's order, with their instances (the files hold exactly these; the paper's Table 5)
COUNTS = {"ALLamended": 4917, "S10amended": 955, "42D": 370, "hardEN": 476, "softEN": 5766}
HARD_SETS = tuple(COUNTS)

#: every file of the release lexprobe reads, under the dataset's folder (the repository's layout): (SHA-256, bytes)
FILES: dict[str, tuple[str, int]] = {
    "wsd_hard_benchmark/ALLamended/ALLamended.data.xml": ("7b91e0cccc6372b0482f63bf030321ed12688bc91a169d3ef81f73afcaad58b4", 1_273_453),
    "wsd_hard_benchmark/ALLamended/ALLamended.gold.key.txt": ("c33cbc824dad5b5d5f0e2666ed308fe1a2ea05f5de7199d2f3c13f62f4a698ee", 231_738),
    "wsd_hard_benchmark/S10amended/S10amended.data.xml": ("33a0dd961328a4da1e76edfa84d7e507fe955e1fc93d1c26f9b523478d5fb117", 325_883),
    "wsd_hard_benchmark/S10amended/S10amended.gold.key.txt": ("403e08c099360344b5230b3781b75c2dc3514a4954387cf3490e4a209fa58dd9", 43_986),
    "wsd_hard_benchmark/42D/42D.data.xml": ("45ae38a0f3758c03ca4a568e5d031ac0baa09784b70cb257bbd64e3a1be5cf1a", 334_360),
    "wsd_hard_benchmark/42D/42D.gold.key.txt": ("d6b1a81dec6f6418238a880727f033cca8a3317142a25012183483f731d53c78", 14_741),
    "wsd_hard_benchmark/hardEN/hardEN.data.xml": ("7d7909082e084851af2d3d0463e01b5d2163428d9c2071298e4c4b29b2837e93", 1_654_852),
    "wsd_hard_benchmark/hardEN/hardEN.gold.key.txt": ("ff378ce80d8b60cbf78382d476fb782e96949c87fd716a19dcbda0649550b1b1", 20_347),
    "wsd_hard_benchmark/softEN/softEN.data.xml": ("70bb8c969dd52986854c2a8687ae49de2097957e5563f8d952605478ed03b938", 1_881_088),
    "wsd_hard_benchmark/softEN/softEN.gold.key.txt": ("0aa89b660bf707021f5ca3302c643620524b565cab3ccf725e2532482c55bd20", 264_834),
    "evaluation/predictions/ALL/esc-predictions.key.txt": ("651528a71f5c4d439c7031149b2901d5af18ceaa4cd7b368b3eed63d33bc5563", 324_097),
    "evaluation/predictions/ALL/bem-predictions.key.txt": ("f2758bb9b501d3e18f9f3fa9a77df9f74a17e006ea4c636f6eda31bddd9cda44", 316_892),
    "evaluation/predictions/ALL/ewiser-predictions.key.txt": ("a486b647075f1622c928091f98a57d1d4eda10ae67e35b6d5dfae54f461e0850", 324_361),
    "evaluation/predictions/ALL/ares-predictions.key.txt": ("6466b3745dd09249512eabba3d7eed03631bd7e1dfa66109400fd378b8ead5f9", 316_881),
    "evaluation/predictions/ALL/glossbert-predictions.key.txt": ("8cade26b298018dad49d8b73b1d9a4b36517d42891b919af2b3cf09724c21974", 317_007),
    "evaluation/predictions/ALL/generationary-predictions.key.txt": ("6583422c796ca65da953c962862ab8b098da201838a897a37c0656e7ac4e5ffe", 317_133),
    "evaluation/predictions/ALL/lmms-predictions.key.txt": ("23ebf0ba0b4dbe9b5c5a92fc05b3bb3bb0e304efe2ae702a293bbce52c743935", 317_568),
    "evaluation/predictions/ALL/syntagrank-predictions.key.txt": ("5b0966b0f5a9ee76e138e13e725ad48ac6ba1c56e650318dceeb51574b1ad1b8", 316_512),
    "evaluation/predictions/ALLamended/esc-predictions.ALLamended.key.txt": ("50ea11040857b81f296df80e398a8477a1fc8c7fc97fcd27f6c12a61a7361249", 212_281),
    "evaluation/predictions/ALLamended/bem-predictions.ALLamended.key.txt": ("9bbfdbd650e8c82bf637f82983d33576d8bcd3f60bc1e5b8c805ad2e44f35667", 212_252),
    "evaluation/predictions/ALLamended/ewiser-predictions.ALLamended.key.txt": ("bfb4ac8db17faeed737ccefd4e179e63c6430591426e9f9785780220e5c2ff34", 212_439),
    "evaluation/predictions/ALLamended/ares-predictions.ALLamended.key.txt": ("e8c9ddf1ed048f33c74c7c03e8a6a3b0b15e2a84f9d53cb7f8fc8d059d49f99f", 212_202),
    "evaluation/predictions/ALLamended/glossbert-predictions.ALLamended.key.txt": ("d06c7fd69106be51e8b871a8737d5f2ea11d762e7ac82d6f2ea470fdd8532896", 213_395),
    "evaluation/predictions/ALLamended/generationary-predictions.ALLamended.key.txt": ("460c68c28334db4b3b03df33ce5a6bce73c743d95e43f02b97047f97467304cc", 212_444),
    "evaluation/predictions/ALLamended/syntagrank-predictions.ALLamended.key.txt": ("ac378fbd55453b610e71b4428906eeee1fe9c1dc036176432e61882a3d856b89", 212_893),
    "evaluation/predictions/S10amended/esc-predictions.S10amended.key.txt": ("97081c65793a6e4d582ff6a7007bed54b36459942ce0c7cdbf10912a9ef11e08", 42_403),
    "evaluation/predictions/S10amended/bem-predictions.S10amended.key.txt": ("c52e835fe5d2114776728484bd4a11a3e5d9cb0827e1244199dc5964d71f6612", 42_403),
    "evaluation/predictions/S10amended/ewiser-predictions.S10amended.key.txt": ("3b95b85c08fe4a1d8f94644872765ff55cc2a954c151db02b7cf2f73225c4aff", 42_403),
    "evaluation/predictions/S10amended/ares-predictions.S10amended.key.txt": ("a5c521a3754db67337523dd47e0a07fc8747efca2ccf8218618ffd6dcb461793", 42_403),
    "evaluation/predictions/S10amended/glossbert-predictions.S10amended.key.txt": ("94ff6b5dd355f5d33b457a7faaf72381945063655dd0fb713350b99ce35afd3e", 42_489),
    "evaluation/predictions/S10amended/generationary-predictions.S10amended.key.txt": ("009daf3dd7d06d1da3f48ec5c9513669c6cc7566f0e92ffedc33b10b6b6bfcfb", 42_403),
    "evaluation/predictions/S10amended/syntagrank-predictions.S10amended.key.txt": ("703b440f0ed4f85d6c586e17b30daf4b5a9948e07340ec4f4cd38352136f69ce", 42_489),
    "evaluation/predictions/42D/esc-predictions.42D.key.txt": ("eca549517aa3978a4c33ffb2dc88041add2744e96c3a5af5452b42fb8820a069", 13_679),
    "evaluation/predictions/42D/bem-predictions.42D.key.txt": ("6c897d849cbf7df147e46ec2ccee88283fddaab963bc121e2495798b9477614c", 13_689),
    "evaluation/predictions/42D/ewiser-predictions.42D.key.txt": ("76141ae657570174f474169a2e29ed5afa66e16480aa5f5d298e228feb1f06f7", 13_700),
    "evaluation/predictions/42D/ares-predictions.42D.key.txt": ("bfa5b62580b3d8b3820b9596fd4d5ff60f16f2290543843f2796e54904b08616", 13_661),
    "evaluation/predictions/42D/glossbert-predictions.42D.key.txt": ("b2413249e58db5a50cb3edfffd272aa3b3397b0abea5a6e2acdc4a22be63cd90", 13_626),
    "evaluation/predictions/42D/generationary-predictions.42D.key.txt": ("4ef0e25f9f8d1661dc2a4bbcf18a56b5cefb347bd11aefa12daaa15140b8e192", 13_688),
    "evaluation/predictions/42D/syntagrank-predictions.42D.key.txt": ("70cc2560bcc506e554bf0a64229b3472a6c7ae68833eb33e0c4f7c05060f7dd0", 13_630),
    "evaluation/predictions/softEN/esc-predictions.softEN.key.txt": ("33f4270db6d4e695ddd02f4aa40c9ad10baf6673780eea0293a849866e16de28", 248_631),
    "evaluation/predictions/softEN/bem-predictions.softEN.key.txt": ("bb7c983fe9e2bbe2d0038cb468bd8c514ce21c2113a14fcee27674fdd6964617", 248_634),
    "evaluation/predictions/softEN/ewiser-predictions.softEN.key.txt": ("cb3256d9c7a7f6fbd89497102e0e5eef2399e0d64c5bd75404fac80b46963db2", 248_811),
    "evaluation/predictions/softEN/ares-predictions.softEN.key.txt": ("d559548c476d1120c1ece26dc7226c7c87a31bbb60ddc3ab0b64cabd03888548", 248_566),
    "evaluation/predictions/softEN/glossbert-predictions.softEN.key.txt": ("8580475538a0d123de702b90d35edb658151297e976d5b2e28c719fb6bf133d1", 248_723),
    "evaluation/predictions/softEN/generationary-predictions.softEN.key.txt": ("9d36cdb34425114f83a41278321356c4a72b194ffff6fa4d43501338a66a0faf", 248_827),
    "evaluation/predictions/softEN/syntagrank-predictions.softEN.key.txt": ("7bfd5f96f6f1b5918c12cfd55aa011edad8ae12228f3bd7302491338e409000d", 248_238),
    "LICENSE.txt": ("db2e35513dbadcdc67f5819a3bfee2777786538dd3531620cd5fbd4b6ed6e538", 19_345),
}

#: ``content_digest`` of each set's instances (``data.wsd``): an export of a whole set is known to be it
CONTENT = {
    "ALLamended": "5e0188560ddc760e763395e1bb0be17d96751b2e1b1f47c989cae2ae362ad6a9",
    "S10amended": "bda09c956b760171ceb61aae44db58a9672c4f2453439d4b8c6f6b034f8c4cfb",
    "42D": "68d130be9ab6b3647ebc78a64bed93a13f5971a72ff88cf9f399f423cc40b153",
    "hardEN": "f573de23a47fa5e8519a75b77f19b8dfd0406392043a45fb794aa42050fd9e3f",
    "softEN": "6e90bdb3fea186fed98bc9ad77a4b74597526d71c63d0b50cb23731d47f50799",
}


def _set_file(name: str, suffix: str) -> str:
    return f"wsd_hard_benchmark/{name}/{name}{suffix}"


for _name in HARD_SETS:
    register_set(OfficialSet(_name, _name, COUNTS[_name], NAME, _set_file(_name, DATA_SUFFIX),
                             _set_file(_name, GOLD_SUFFIX), FILES[_set_file(_name, DATA_SUFFIX)][0],
                             FILES[_set_file(_name, GOLD_SUFFIX)][0], CONTENT[_name]))


# --- the published systems -----------------------------------------------------------------------------------

@dataclass(frozen=True)
class System:
    """A system whose answers the release holds: its name as the paper writes it, the stem of its answer files,
    where it was published, and its F1 on ALL as published (``Scorer.java`` gives exactly these on its files)."""

    name: str
    stem: str
    cite: str
    published_all: float


#: the paper's systems, by their published F1 on ALL
SYSTEMS = (
    System("ESCHER", "esc", "Barba et al. 2021", 80.7),
    System("BEM", "bem", "Blevins & Zettlemoyer 2020", 79.0),
    System("EWISER", "ewiser", "Bevilacqua & Navigli 2020", 78.3),
    System("ARES", "ares", "Scarlini et al. 2020", 77.9),
    System("GlossBERT", "glossbert", "Huang et al. 2019", 76.9),
    System("Generationary", "generationary", "Bevilacqua et al. 2020", 76.3),
    System("LMMS", "lmms", "Loureiro & Jorge 2019", 75.4),
    System("SyntagRank", "syntagrank", "Scozzafava et al. 2020", 71.7),
)

#: the sets whose answer files hold an instance of each official set's, in the order they are looked in: ALL's
#: files for the framework's sets (ids as ALL spells them), each release set's own, and for hardEN the three sets
#: its instances come from (the release has no answers of the seven systems on hardEN: none solves any)
ANSWERS_OF: dict[str, tuple[str, ...]] = {**{s: ("ALL",) for s in (*SETS, "ALL")},
                                          **{s: (s,) for s in HARD_SETS if s != "hardEN"},
                                          "hardEN": ("ALLamended", "S10amended", "42D")}


def answer_file(system: System, source: str) -> str | None:
    """The release's answer file of ``system`` on the set ``source``, under the dataset's folder (None: none)."""
    rel = (f"evaluation/predictions/ALL/{system.stem}-predictions.key.txt" if source == "ALL" else
           f"evaluation/predictions/{source}/{system.stem}-predictions.{source}.key.txt")
    return rel if rel in FILES else None


@dataclass
class SystemAnswers:
    """One system's answers on a run's instances (by the run's instance ids), and where they came from: each
    file with its SHA-256 and the lines skipped by fault (``metrics.wsd.AnswerFaults``)."""

    name: str
    cite: str
    answers: dict[str, tuple[str, ...]]
    files: list[dict] = field(default_factory=list)
    release: bool = True  #: one of the release's published systems (else a file of one's own)
    published_all: float | None = None


def folder() -> Path:
    from lexprobe.data.locations import entry_path

    return entry_path(NAME)


def present() -> bool:
    """Whether the release is in the data directory (its sets and answers)."""
    return folder().is_dir()


def _lookup_id(inst: WsdInstance) -> str:
    """The id an answer file of the instance's source gives it: ALL's (``senseval2.d000...``) for the framework's
    sets, the set's own for the release's."""
    return inst.qualified_id


def release_answers(scored: list[WsdInstance]) -> tuple[list[SystemAnswers], list[dict]] | None:
    """Each published system's answers on ``scored`` (a run's instances, all of one official set), read from the
    pinned files in the data directory, and the systems the release has no answers of for that set
    (``[{"name", "why"}]``). None when the instances are no official set's (a file of one's own), or the release is
    not in the data directory."""
    sets = {inst.set_name for inst in scored}
    sources = {ANSWERS_OF.get(s) for s in sets}
    if not scored or len(sources) != 1 or not present():
        return None
    (order,) = sources
    if order is None:  # a file of one's own: no published answers for it
        return None
    known = {source: set(read_key_file(OFFICIAL[source].files()[1])) for source in order}
    out, absent = [], []
    for system in SYSTEMS:
        files = [(source, rel) for source in order for rel in [answer_file(system, source)] if rel is not None]
        if not files:
            absent.append({"name": system.name, "why": f"the release has no {system.name} answers for "
                                                      f"{' or '.join(sorted(sets))}"})
            continue
        merged: dict[str, tuple[str, ...]] = {}
        records = []
        for source, rel in files:
            answers, faults = read_answer_file(folder() / rel, known[source], strict=False)
            for key, value in answers.items():
                merged.setdefault(key, value)
            records.append({"file": f"{NAME}/{rel}", "set": source, "sha256": FILES[rel][0], **_faults(faults)})
        mine = {inst.id: merged[_lookup_id(inst)] for inst in scored if _lookup_id(inst) in merged}
        out.append(SystemAnswers(system.name, system.cite, mine, records, True, system.published_all))
    return out, absent


def _faults(faults: AnswerFaults) -> dict[str, int]:
    return {k: v for k, v in faults.as_dict().items() if v or k == "lines"}


def read_answer_file(path: Path, known: set[str] | None, strict: bool = True) -> tuple[dict, AnswerFaults]:
    """An answer file (tab or space separated), checked against its pin where it is a dataset file; ``strict``:
    every fault one ``DataError`` naming the file and line, else each faulty line skipped and counted."""
    text = read_text(path, "pass a key file of answers (`<instance id> <sense key> ...` per line)")
    return parse_answer_lines(text.split("\n"), str(path), known, strict)


# --- checks, fetch and import ------------------------------------------------------------------------------------

def check_file(path: Path, relpath: str) -> None:
    """A fetched file's format before it is pinned: a set's data or gold file holds the set's published count of
    instances; an answer file reads as one (its own faults counted, as a run reads it)."""
    name = Path(relpath).name
    for set_name, count in COUNTS.items():
        if name == f"{set_name}{DATA_SUFFIX}":
            found = len(read_targets(path)[0])
        elif name == f"{set_name}{GOLD_SUFFIX}":
            found = len(read_key_file(path))
        else:
            continue
        if found != count:
            raise DataError(f"{path} holds {found:,} instances; the release's {set_name} has {count:,}: not the "
                            f"release's {name}")
        return
    if name.endswith(".key.txt"):
        read_answer_file(path, None, strict=False)


def _root(src: Path, say: Callable[[str], None]) -> Path:
    """The release's folder: ``src`` when it holds ``wsd_hard_benchmark/``, else its one subfolder that does (an
    unzipped archive's ``wsd-hard-benchmark-<commit>/``)."""
    def holds(folder: Path) -> bool:
        return (folder / "wsd_hard_benchmark").is_dir() and (folder / "evaluation").is_dir()

    if not src.is_dir():
        raise DataError(f"{src} is not a folder; give the release's folder (wsd_hard_benchmark/ and evaluation/)")
    if holds(src):
        return src
    inside = [p for p in sorted(src.iterdir()) if p.is_dir() and holds(p)]
    if len(inside) == 1:
        say(f"importing {inside[0]}, the wsd-hard release's folder in {src}")
        return inside[0]
    raise DataError(f"{src} does not hold the wsd-hard release (no wsd_hard_benchmark/ and evaluation/); give a "
                    f"checkout of github.com/{REPO} at {COMMIT[:7]}, or its unzipped archive")


def import_release(sources: list[Path], say: Callable[[str], None]) -> None:
    """``lexprobe data import wsd-hard DIR``: every pinned file of the release, checked against its SHA-256 and its
    sets read by the reader (published counts), then copied in as one folder."""
    from lexprobe.data.files import require_regular
    from lexprobe.data.install import install_copies
    from lexprobe.data.pins import check_pinned, record_import

    root = _root(Path(sources[0]), say)
    chosen: list[tuple[Path, str]] = []
    for f in DATASET.files:
        inner = f.relpath.split("/", 1)[1]
        src = root / inner
        if not src.is_file():
            raise DataError(f"{root} has no {inner}; give the release's folder as its commit {COMMIT[:7]} has it "
                            "(wsd_hard_benchmark/, evaluation/predictions/, LICENSE.txt)")
        require_regular(src, "give the release's files")
        check_pinned(DATASET, f.relpath, src)
        chosen.append((src, f.relpath))
    for set_name, count in COUNTS.items():
        found = len(read_wsd(root / _set_file(set_name, DATA_SUFFIX), say=lambda line: None))
        if found != count:  # pragma: no cover - the pinned files hold the published counts (a test reads them)
            raise DataError(f"{root}: {set_name} holds {found:,} instances, not the release's {count:,}")
    install_copies(data_dir() / DATASET.entry, [(src, rel.split("/", 1)[1]) for src, rel in chosen])
    record_import(NAME, DATASET.entry, {rel: FILES[rel.split("/", 1)[1]][0] for _, rel in chosen}, root, say)


DATASET = register_dataset(Dataset(
    name=NAME, title="WSD hard benchmark (Maru et al. 2022): ALLamended, S10amended, 42D, hardEN, softEN and the "
                     "published systems' answers",
    version=COMMIT[:7], pin=COMMIT, upstream=f"github.com/{REPO}",
    upstream_path="wsd_hard_benchmark/<set>/<set>.{data.xml,gold.key.txt}, evaluation/predictions/<set>/"
                  "<system>-predictions[.<set>].key.txt, LICENSE.txt",
    licence=LICENCE, reader_format="the framework's <set>.data.xml + <set>.gold.key.txt; answer key files",
    files=tuple(RemoteFile(f"{NAME}/{rel}", github_raw(REPO, COMMIT, rel), sha, size)
                for rel, (sha, size) in FILES.items()),
    entry=NAME, redistributable=False, check=check_file, importer=import_release,
    notes="`data import wsd-hard DIR` takes a checkout (or unzipped archive) of the repository at the pinned commit",
))
