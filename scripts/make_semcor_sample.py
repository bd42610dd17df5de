"""Build the SemCor sample shipped in ``lexprobe/data/samples/`` (run once; the output is committed).

    python scripts/make_semcor_sample.py PATH/TO/semcor3.0_naf.tar.xz [--budget 300000]

Lemmas are drawn with seed 0 among those that give sense-ranking queries (a query
sense with >= 5 instances in the database half of the seed-0 document split) and
have at most 120 instances; every sentence with an instance of a drawn lemma is
kept, plus the first tagged sentence of each other document so that the sample has
all 352 documents and so the same document split as the full corpus. Each NAF
document is cut down to those sentences, keeping only what the reader reads (word
forms; terms with their ``lexical_key`` reference), and the tar.xz is grown lemma
by lemma until it would pass ``--budget`` bytes.
"""

from __future__ import annotations

import argparse
import io
import random
import sys
import tarfile
from collections import Counter, defaultdict
from pathlib import Path
from xml.sax.saxutils import escape, quoteattr

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from lexprobe.data.semcor import iter_semcor_sentences, semcor_instances  # noqa: E402

OUT = Path(__file__).resolve().parents[1] / "lexprobe" / "data" / "samples" / "semcor3.0-sample.tar.xz"
HEADER = """<?xml version="1.0" encoding="UTF-8"?>
<!-- Cut down by lexprobe (scripts/make_semcor_sample.py) from SemCor 3.0 NAF,
     github.com/rubenIzquierdo/wsd_corpora @ c31b9b8eb6d6ca726b6868f19123aaf7e5eb1d88,
     semcor3.0/{doc}.naf: only some sentences, word forms and lexical_key references are kept.
     Licences: LICENSE-semcor-WordNet-3.0.txt, LICENSE-wsd_corpora-Apache-2.0.txt (README.md). -->
<NAF xml:lang="en" version="v3">
"""


def build(sentences, keep: set[tuple[str, str]]) -> dict[str, bytes]:
    docs: dict[str, list] = defaultdict(list)
    for s in sentences:
        if (s.doc_id, s.sent_id) in keep:
            docs[s.doc_id].append(s)
    out = {}
    for doc, sents in sorted(docs.items()):
        wfs, terms, n = [], [], 0
        for s in sents:
            ids = []
            for tok in s.tokens:
                n += 1
                ids.append(f"w{n}")
                wfs.append(f'<wf id="w{n}" sent={quoteattr(s.sent_id)}>{escape(tok.replace(" ", "_"))}</wf>')
            for a in s.annotations:
                if a.multiword:
                    continue
                key = a.sense_key.split("%", 1)[1]
                terms.append(f'<term id="t{len(terms) + 1}" lemma={quoteattr(a.lemma)} pos={quoteattr(a.pos)}>'
                             f'<span><target id="{ids[a.index]}"/></span><externalReferences>'
                             f'<externalRef reftype="lexical_key" reference={quoteattr(key)}/>'
                             "</externalReferences></term>")
        text = (HEADER.format(doc=doc) + "<text>\n" + "\n".join(wfs) + "\n</text>\n<terms>\n"
                + "\n".join(terms) + "\n</terms>\n</NAF>\n")
        out[f"semcor3.0/{doc}.naf"] = text.encode("utf-8")
    return out


def pack(docs: dict[str, bytes]) -> bytes:
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:xz", preset=9) as tar:
        for name, data in docs.items():
            info = tarfile.TarInfo(name)
            info.size, info.mtime, info.mode = len(data), 0, 0o644
            tar.addfile(info, io.BytesIO(data))
    return buf.getvalue()


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("archive")
    ap.add_argument("--budget", type=int, default=300_000)
    ap.add_argument("--max-lemma-size", type=int, default=120)
    args = ap.parse_args()
    sentences = list(iter_semcor_sentences(args.archive))
    insts = semcor_instances(args.archive, seed=0)
    size = Counter(i.lemma for i in insts)
    train_sense = Counter((i.lemma, i.label) for i in insts if i.split == "train")
    good = sorted({i.lemma for i in insts if i.split != "train" and train_sense[(i.lemma, i.label)] >= 5
                   and size[i.lemma] <= args.max_lemma_size})
    random.Random(0).shuffle(good)
    where = defaultdict(set)
    for i in insts:
        where[i.lemma].add((i.doc_id, i.sent_id))
    filler = {}
    for s in sentences:
        if s.annotations and s.doc_id not in filler:
            filler[s.doc_id] = (s.doc_id, s.sent_id)
    base: set = set(filler.values())

    def sample(k: int) -> tuple[set, bytes]:
        keep = base.union(*(where[lemma] for lemma in good[:k]))
        return keep, pack(build(sentences, keep))

    lo, hi = 0, len(good)  # the largest k whose archive fits the budget (size grows with k)
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if len(sample(mid)[1]) <= args.budget:
            lo = mid
        else:
            hi = mid - 1
    keep, blob = sample(lo)
    chosen = good[:lo]
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_bytes(blob)
    print(f"{len(chosen)} lemmas, {len(keep)} sentences, {len(filler)} documents, {len(blob)} bytes -> {OUT}")
    print("lemmas:", " ".join(sorted(chosen)))


if __name__ == "__main__":
    main()
