"""SemCor 3.0 in NAF, read straight from an archive or an unpacked tree.

GitHub's wsd_corpora archive (only its ``semcor3.0/brown*/`` members), the lab's ``semcor3.0_naf.tar.xz`` and an
unpacked ``semcor3.0/`` tree are read alike, streamed member by member (unpacked it is ~220 MB), documents sorted
by name. Sense keys are ``lemma%lexical_key``: the ``synset`` externalRefs are never used (about 62k point at
wrong offsets). A full parse takes ~17 s, so the sentences are cached as JSON (never a pickle) under
``cache_dir()/semcor/``. Multi-word tokens (``took_place``) carry spaces in ``tokens`` and ``multiword=True``.
``authors_semcor_instances`` reads SemCor as the sense-ranking authors' code reads NLTK's ``semcor``
(``bssp/semcor/dataset_reader.py``).
"""

from __future__ import annotations

import hashlib
import html
import lzma
import os
import re
import tarfile
import zlib
from pathlib import Path
from typing import Any, Callable, Iterator, NamedTuple

from lexprobe.cache import cache_dir, cached_json, stable_hash
from lexprobe.data.locations import default_semcor as default_archive
from lexprobe.data.registry import Dataset, RemoteFile, register_dataset
from lexprobe.errors import DataError

_CACHE_VERSION = 4
_MWE_JOIN = re.compile(r"(?<=[^_])_(?=[^_])")

#: WordNet ``ss_type`` digit of a sense key -> coarse part of speech (satellites are adjectives)
SS_TYPE_POS = {"1": "n", "2": "v", "3": "a", "4": "r", "5": "a"}


class SemcorAnnotation(NamedTuple):
    """One sense-tagged term: ``tokens[index]`` has WordNet sense key ``sense_key``."""

    index: int  # type: ignore[assignment]  # shadows tuple.index: the field name the NAF readers use
    lemma: str
    pos: str  # the NAF term's Penn tag (NN, VB, JJ, RB, NNP)
    sense_key: str  # e.g. "say%2:32:00::"
    multiword: bool = False
    sense_number: str = ""  # the NAF ``sense_number`` (SemCor's ``wnsn``), e.g. "1" or "2;1"

    @property
    def wn_pos(self) -> str:
        """Coarse WordNet POS (n, v, a, r) from the sense key's ss_type."""
        return SS_TYPE_POS.get(self.sense_key.split("%", 1)[1][:1], "")


class SemcorSentence(NamedTuple):
    doc_id: str  # e.g. "brown1/br-a01"
    sent_id: str  # the NAF ``sent`` attribute, unique within a document
    tokens: tuple[str, ...]
    annotations: tuple[SemcorAnnotation, ...]

    @property
    def text(self) -> str:
        return " ".join(self.tokens)


def sample_archive() -> Path:
    """The small SemCor sample shipped inside the package (see ``data/samples/README.md``)."""
    return Path(__file__).resolve().parent / "samples" / "semcor3.0-sample.tar.xz"


#: what a run on the bundled sample says (``sample_data`` of ``lexprobe run``'s summary)
SAMPLE_NOTE = {"what": "the SemCor sample shipped with lexprobe (1,202 sentences, 12,747 instances)",
               "get": "lexprobe data fetch semcor"}


def sample_instead() -> Path | None:
    """The bundled sample when SemCor is neither in the data directory nor at ``$LEXPROBE_SEMCOR`` (which stays
    an error when it names nothing), else None: ``lexprobe run`` and ``senserank eval`` work without a network."""
    if "LEXPROBE_SEMCOR" in os.environ or default_archive().exists():
        return None
    return sample_archive()


def is_sample(path: str | Path | None) -> bool:
    return path is not None and Path(path).resolve() == sample_archive()


def iter_semcor_sentences(archive: str | Path | None = None) -> Iterator[SemcorSentence]:
    """Every sentence of SemCor 3.0 in document, then sentence order (untagged ones too)."""
    path = Path(archive) if archive is not None else default_archive()
    if not path.exists():
        if archive is None and "LEXPROBE_SEMCOR" not in os.environ:
            raise DataError(
                f"SemCor 3.0 not found in the data directory ({path.parent}); run `lexprobe data fetch semcor` "
                "(or `lexprobe data import semcor semcor3.0_naf.tar.xz`), or pass the archive's path"
            )
        raise DataError(
            f"SemCor archive not found at {path}; pass an existing SemCor NAF archive or semcor3.0 folder "
            "(LEXPROBE_SEMCOR, --semcor/--path) or run `lexprobe data fetch semcor`"
        )
    _check_readable(path)
    yield from _load_cached(path)


def _check_readable(path: Path) -> None:
    """A regular file or a folder, and (in the data directory) still what was pinned."""
    from lexprobe.data.files import require_regular
    from lexprobe.data.pins import check_unchanged

    require_regular(path, "pass a SemCor NAF archive or semcor3.0 folder")
    check_unchanged(path)


def count_semcor(archive: str | Path | None = None) -> dict[str, int]:
    """Document, sentence and sense-tagged-term counts (for checks and docs)."""
    docs, sents, terms, multi = set(), 0, 0, 0
    for s in iter_semcor_sentences(archive):
        docs.add(s.doc_id)
        sents += 1
        terms += len(s.annotations)
        multi += sum(a.multiword for a in s.annotations)
    return {"documents": len(docs), "sentences": sents, "tagged_terms": terms, "multiword_terms": multi}


def _cache_file(path: Path) -> Path:
    return cache_dir() / "semcor" / f"semcor-{_cache_key(path)}.json"


def _cache_key(path: Path) -> str:
    """The digest of what the sentences are parsed from: the source's path, size, modification time and inode (a
    tree: its files' count, total size and latest time), and the parser's version."""
    size: object
    if path.is_dir():
        stats = [f.stat() for f in _tree_files(path)]
        size, mtime = [len(stats), sum(s.st_size for s in stats)], max((s.st_mtime_ns for s in stats), default=0)
        inode = None
    else:
        st = path.stat()
        size, mtime, inode = st.st_size, st.st_mtime_ns, st.st_ino
    return stable_hash([str(path.resolve()), size, mtime, inode, _CACHE_VERSION])


def _load_cached(path: Path) -> list[SemcorSentence]:
    """The sentences from the JSON cache (never a pickle: a planted one once ran code, D5), else parsed and
    stored; a damaged or ill-shaped cache file (``_from_rows`` checks its shape) is parsed again."""

    def parsed() -> list[SemcorSentence]:
        return sorted(_parse_archive(path), key=lambda s: s.doc_id)  # stable: sentence order kept

    return cached_json(_cache_file(path), Any, parsed, inputs={"cache": "semcor-sentences", "key": _cache_key(path)},
                       read=_from_rows, stored=_to_rows)


def _to_rows(sentences: list[SemcorSentence]) -> dict:
    return {"format": _CACHE_FORMAT,
            "sentences": [[s.doc_id, s.sent_id, list(s.tokens), [list(a) for a in s.annotations]] for s in sentences]}


#: the cache file's format: {"format": ..., "sentences": [[doc, sent, [tokens], [[index, lemma, pos, key,
#: multiword, sense_number], ...]], ...]}
_CACHE_FORMAT = "lexprobe-semcor/1"
_ANNOTATION_TYPES = (int, str, str, str, bool, str)


def _from_rows(data: object) -> list[SemcorSentence]:
    """The sentences of a cache file's content; ``ValueError`` for any value of the wrong type or shape."""
    if not isinstance(data, dict) or data.get("format") != _CACHE_FORMAT or not isinstance(data.get("sentences"), list):
        raise ValueError("not a lexprobe SemCor cache")
    out = []
    for row in data["sentences"]:
        doc, sent, tokens, anns = row
        if not (isinstance(doc, str) and isinstance(sent, str) and isinstance(tokens, list) and isinstance(anns, list)
                and all(isinstance(t, str) for t in tokens)):
            raise ValueError("a sentence of the wrong shape")
        annotations = []
        for ann in anns:
            if not (isinstance(ann, list) and len(ann) == len(_ANNOTATION_TYPES)
                    and all(type(v) is t for v, t in zip(ann, _ANNOTATION_TYPES))):
                raise ValueError("an annotation of the wrong shape")
            annotations.append(SemcorAnnotation(*ann))
        out.append(SemcorSentence(doc, sent, tuple(tokens), tuple(annotations)))
    return out


def _is_semcor_member(name: str, repo_archive: bool) -> bool:
    """A ``.naf`` file, under ``semcor3.0/`` in a wsd_corpora repository archive."""
    if not name.endswith(".naf"):
        return False
    return "semcor3.0" in name.split("/")[:-1] or not repo_archive


def naf_relpath(name: str) -> str:
    """``.../semcor3.0/brown1/br-a01.naf`` -> ``semcor3.0/brown1/br-a01.naf`` (else the last two parts)."""
    parts = name.split("/")
    if "semcor3.0" in parts[:-1]:
        return "/".join(parts[parts.index("semcor3.0"):])
    return "/".join(parts[-2:])


def _tree_files(root: Path) -> list[Path]:
    return sorted(p for p in root.rglob("*.naf") if p.is_file())


def iter_naf_members(path: str | Path) -> Iterator[tuple[str, bytes]]:
    """``(relpath, bytes)`` of every SemCor NAF document of an archive or an unpacked tree."""
    path = Path(path)
    _check_readable(path)
    if path.is_dir():
        files = _tree_files(path)
        if not files:
            raise DataError(f"no .naf files under {path}; expected SemCor 3.0 NAF documents (semcor3.0/brown*/*.naf)")
        repo = any("semcor3.0" in f.relative_to(path).parts[:-1] for f in files)
        for f in files:
            rel = f.relative_to(path).as_posix()
            if _is_semcor_member(rel, repo):
                yield naf_relpath(f"{path.name}/{rel}"), f.read_bytes()
        return
    try:
        tar = tarfile.open(path, "r:*")
    except (tarfile.TarError, OSError, EOFError, lzma.LZMAError, zlib.error) as err:
        raise DataError(
            f"cannot read SemCor archive {path} ({str(err).splitlines()[0][:80] if str(err) else type(err).__name__}); "
            "expected a tar archive of SemCor NAF documents (semcor3.0_naf.tar.xz or the wsd_corpora repository archive)"
        ) from None
    with tar:
        repo_archive = None
        try:
            for member in tar:
                if repo_archive is None:
                    repo_archive = member.name.split("/")[0].startswith("wsd_corpora")
                if not (member.isfile() and _is_semcor_member(member.name, repo_archive)):
                    continue
                member_file = tar.extractfile(member)
                if member_file is not None:
                    yield naf_relpath(member.name), member_file.read()
        except (tarfile.TarError, EOFError, OSError, lzma.LZMAError, zlib.error) as err:
            raise DataError(
                f"SemCor archive {path} is damaged or truncated ({type(err).__name__}: "
                f"{str(err)[:80] or 'unexpected end of data'}); fetch or import it again"
            ) from None


def naf_content_digest(path: Path) -> tuple[str, int]:
    """SHA-256 over ``relpath<TAB>sha256(bytes)`` lines of the SemCor NAF documents, sorted,
    and their number: the same for the repository archive, a tar.xz or an unpacked tree."""
    lines = sorted(f"{rel}\t{hashlib.sha256(data).hexdigest()}\n" for rel, data in iter_naf_members(path))
    if not lines:
        raise DataError(f"no SemCor NAF documents in {path}")
    return hashlib.sha256("".join(lines).encode()).hexdigest(), len(lines)


def check_content(path: Path) -> None:
    """The registry's content pin: an archive, tar.xz or tree is the pinned corpus in any packaging (fetch, import
    and verify check it so)."""
    ds = DATASET
    digest, n = naf_content_digest(path)
    if digest != ds.content_sha256:
        raise DataError(
            f"{path} is not {ds.title} at {ds.pin[:12]}: its {n} NAF documents have content digest "
            f"{digest[:16]}..., expected {(ds.content_sha256 or '')[:16]}... (352 documents)"
        )

def _parse_archive(path: Path) -> Iterator[SemcorSentence]:
    """Every sentence of the archive or tree; a damaged archive is one DataError."""
    documents = 0
    for name, data in iter_naf_members(path):
        documents += 1
        doc_id = "/".join(name.split("/")[-2:])[: -len(".naf")]
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as err:
            raise DataError(f"NAF member {name} in {path} is not UTF-8: {err}") from err
        if "<NAF" not in text:
            raise DataError(f"member {name} in {path} is not a NAF document")
        yield from _parse_document(doc_id, text)
    if documents == 0:
        raise DataError(f"SemCor archive {path} contains no NAF documents (*.naf); expected SemCor 3.0 NAF documents")


# The NAF files are machine-written and regular: regular expressions read them 2.5x faster than ElementTree
# with identical output (tests compare both).
_ATTR = re.compile(r'([\w:]+)="([^"]*)"')
_WF = re.compile(r"<wf\b([^>]*)>([^<]*)</wf>")
_TERM = re.compile(r"<term\b([^>]*)>(.*?)</term>", re.S)
_TARGET = re.compile(r'<target\b[^>]*?\bid="([^"]*)"')
_EXTREF = re.compile(r"<externalRef\b([^>]*?)/?>")


def _attrs(text: str) -> dict[str, str]:
    return {k: html.unescape(v) for k, v in _ATTR.findall(text)}


def _parse_document(doc_id: str, text: str) -> Iterator[SemcorSentence]:
    # word forms, grouped by sentence in document order
    position: dict[str, tuple[str, int]] = {}
    sent_tokens: dict[str, list[str]] = {}
    raw: dict[str, list[str]] = {}
    for attr_text, body in _WF.findall(text):
        attrs = _attrs(attr_text)
        word = html.unescape(body)
        sent = attrs.get("sent", "0")
        tokens = sent_tokens.setdefault(sent, [])
        raw.setdefault(sent, []).append(word)
        position[attrs.get("id", "")] = (sent, len(tokens))
        tokens.append(_MWE_JOIN.sub(" ", word))
    annotations: dict[str, list[SemcorAnnotation]] = {s: [] for s in sent_tokens}
    for attr_text, body in _TERM.findall(text):
        key, number = None, ""
        for ref in _EXTREF.findall(body):
            ref_attrs = _attrs(ref)
            if ref_attrs.get("reftype") == "lexical_key" and key is None:
                key = ref_attrs.get("reference")
            elif ref_attrs.get("reftype") == "sense_number" and not number:
                number = ref_attrs.get("reference", "")
        if key is None:
            continue
        targets = _TARGET.findall(body)
        if not targets or targets[0] not in position:
            continue
        attrs = _attrs(attr_text)
        sent, index = position[targets[0]]
        lemma = attrs.get("lemma", "")
        multiword = len(targets) > 1 or _MWE_JOIN.search(raw[sent][index]) is not None
        annotations[sent].append(SemcorAnnotation(index, lemma, attrs.get("pos", ""), f"{lemma}%{key}", multiword,
                                                  number))
    for sent, tokens in sent_tokens.items():
        anns = sorted(annotations[sent], key=lambda a: a.index)
        yield SemcorSentence(doc_id, sent, tuple(tokens), tuple(anns))


def semcor_instances(
    archive: str | Path | None = None, seed: int = 0, train_fraction: float = 0.8, split_by: str = "document"
):
    """Single-token sense-tagged targets as ``SenseInstance``s (label: the sense key; pos: its coarse POS).

    SemCor has no official split: documents (so that none feeds both D and Q) are shuffled with
    ``random.Random(seed)`` and the first ``train_fraction`` are ``train``. ``split_by="sentence"`` is the
    authors' split: sentences shuffled the same way, the first ``int(n * train_fraction)`` are ``train``.
    """
    import random

    from lexprobe.data.instances import SenseInstance

    sentences = list(iter_semcor_sentences(archive))
    if split_by == "sentence":
        train_sents = _train_sentences(len(sentences), seed, train_fraction)
        in_train = [i in train_sents for i in range(len(sentences))]
    else:
        docs = sorted({s.doc_id for s in sentences})
        random.Random(seed).shuffle(docs)
        n_train = int(round(len(docs) * train_fraction))
        train_docs = set(docs[:n_train])
        in_train = [s.doc_id in train_docs for s in sentences]
    out = []
    for s, train in zip(sentences, in_train):
        split = "train" if train else "test"
        for a in s.annotations:
            if a.multiword:
                continue
            out.append(SenseInstance(s.doc_id, s.tokens, a.index, a.lemma, a.wn_pos, a.sense_key, split, s.sent_id))
    return out


def _train_sentences(n: int, seed: int, train_fraction: float) -> set[int]:
    """The first ``int(n * train_fraction)`` sentence numbers after ``random.Random(seed).shuffle``."""
    import random

    order = list(range(n))
    random.Random(seed).shuffle(order)
    return set(order[: int(n * train_fraction)])


#: the authors' SemCor split: ``random.Random(42).shuffle(sentences)``, first 80% = D
#: (``bssp/semcor/dataset_reader.py:86-92``)
AUTHORS_SEED = 42
_NLTK_POS = ("n", "v", "a", "r", "s")


def authors_label(lemma: str, lexsn: str, wnsn: str, wordnet) -> str:
    """The label the authors' SemCor reader gives a sense-tagged word: NLTK's ``SemcorCorpusReader._word``
    takes ``lemma_from_key(lemma%lexsn)``, written ``synset_lemma`` (``say%2:32:00::`` -> ``state.v.01_say``,
    ``dataset_reader.py:47-51``), or, for a key WordNet lacks, the string ``lemma.pos.NN`` (``lemma.pos.wnsn``
    when ``wnsn`` is not a number, e.g. ``2;1``)."""
    try:
        found = wordnet.lemma_from_key(f"{lemma}%{lexsn}")
        return f"{found.synset().name()}_{found.name()}"
    except Exception:  # noqa: BLE001 - NLTK's reader catches everything here too
        pos = _NLTK_POS[int(lexsn.split(":")[0]) - 1]
        try:
            return "%s.%s.%02d" % (lemma, pos, int(wnsn))
        except ValueError:
            return f"{lemma}.{pos}.{wnsn}"


def authors_pool_key(label: str) -> str:
    """The retrieval pool of a label (``nearest_neighbor_models.py:59,74``): ``state.v.01_say`` -> ``state.v.01``,
    but ``look_for.v.01_seek`` -> ``look``."""
    return label.split("_")[0]


def authors_lemma_of_label(label: str) -> str:
    """``lemma_from_label`` (``dataset_reader.py:20-21``): the WordNet lemma name, whose count in D is r's
    denominator."""
    return label[label.rfind("_") + 1:]


def authors_is_query(label: str) -> bool:
    """``analysis.py:42-44``: SemCor labels ``NE`` or without ``_`` are skipped as queries."""
    return label != "NE" and "_" in label


def authors_semcor_instances(archive: str | Path | None = None, wordnet=None, counts: dict | None = None):
    """SemCor as the authors' code reads it: sentences shuffled with ``Random(42)``, the first ``int(0.8 n)`` D;
    NLTK's leaves as tokens (multi-word tokens split); single-word targets, not the sentence's last token
    (``dataset_reader.py:117-119``); ``label`` = ``authors_label``, ``lemma`` its pool key. ``counts`` receives
    how many targets each rule removed."""
    from collections import Counter

    from lexprobe.data.instances import SenseInstance

    if wordnet is None:
        from lexprobe.data.wordnet import load_wordnet

        wordnet = load_wordnet()
    tally: Counter = Counter()
    sentences = list(iter_semcor_sentences(archive))
    train = _train_sentences(len(sentences), AUTHORS_SEED, 0.8)
    out = []
    for n, s in enumerate(sentences):
        pieces: list[str] = []
        first: list[int] = []
        for tok in s.tokens:
            first.append(len(pieces))
            pieces.extend(tok.split(" "))
        leaves = tuple(pieces)
        for a in s.annotations:
            if a.multiword:
                tally["multiword"] += 1
                continue
            index = first[a.index]
            if index >= len(leaves) - 1:
                tally["sentence_final"] += 1
                continue
            lexsn = a.sense_key.split("%", 1)[1]
            label = authors_label(a.lemma, lexsn, a.sense_number, wordnet)
            if "_" not in label:
                tally["no_wordnet_lemma"] += 1
            out.append(SenseInstance(s.doc_id, leaves, index, authors_pool_key(label), a.wn_pos, label,
                                     "train" if n in train else "test", s.sent_id, query=authors_is_query(label)))
    tally["kept"] = len(out)
    if counts is not None:
        counts.update(tally)
    return out


# --- the dataset ------------------------------------------------------------------------------------------------

COMMIT = "c31b9b8eb6d6ca726b6868f19123aaf7e5eb1d88"
ARCHIVE = f"semcor/wsd_corpora-{COMMIT}.tar.gz"


def _source(src: Path, say: Callable[[str], None]) -> Path:
    """A folder as SemCor is shipped (its one archive beside a README and a licence) means that archive."""
    if src.is_dir() and not any(src.rglob("*.naf")):
        archives = [p for p in sorted(src.iterdir()) if p.is_file()
                    and p.name.endswith((".tar.xz", ".tar.gz", ".tgz", ".tar"))]
        if len(archives) == 1:
            say(f"importing {archives[0]}, the SemCor archive in {src}")
            return archives[0]
    return src


def import_semcor(sources: list[Path], say: Callable[[str], None]) -> None:
    """``lexprobe data import semcor PATH``: an archive (any packaging) or an unpacked tree, checked by content."""
    from lexprobe.data.download import sha256_of
    from lexprobe.data.install import _copy_file, _install_tree, put
    from lexprobe.data.pins import record_import
    from lexprobe.data.registry import data_dir

    src = _source(sources[0], say)
    check_content(src)
    if src.is_dir():
        def fill(tmp: Path) -> None:
            for rel, data in iter_naf_members(src):
                put(tmp, rel, data)

        _install_tree(data_dir() / "semcor" / "tree", fill)
        entry, files = "semcor/tree/semcor3.0", {}
    else:
        entry = f"semcor/{src.name}"
        _copy_file(src, data_dir() / entry)
        files = {entry: sha256_of(data_dir() / entry)}
    record_import("semcor", entry, files, src, say, content_sha256=DATASET.content_sha256 or "")


DATASET = register_dataset(Dataset(
    name="semcor", title="SemCor 3.0 in NAF (WordNet 3.0 sense keys)", version="3.0",
    upstream="github.com/rubenIzquierdo/wsd_corpora", pin=COMMIT,
    upstream_path="semcor3.0/brown*/*.naf (repository archive)",
    licence="SemCor: Princeton WordNet licence; NAF packaging: Apache-2.0",
    reader_format="NAF XML per document; a tar archive (any compression) or an unpacked tree",
    files=(RemoteFile(ARCHIVE, f"https://github.com/rubenIzquierdo/wsd_corpora/archive/{COMMIT}.tar.gz"),),
    entry=ARCHIVE,
    content_sha256="3699a1cf7333265bd890a5c05f2ee3762d7e3011eaeee5dd5f6b7b8366a22ecd",
    notes="the repository archive also holds other WSD corpora; only semcor3.0/brown*/ is read",
    check=lambda path, rel: check_content(path), importer=import_semcor,
    override=lambda: Path(os.environ["LEXPROBE_SEMCOR"]) if os.environ.get("LEXPROBE_SEMCOR") else None,
))
