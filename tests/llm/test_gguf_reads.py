"""A GGUF file is read once per conversion (``models.gguf._read_once``): transformers read its header three times
(tokenizer, configuration, model) and built the ``gguf`` package's tensor-name map once per module, 32 of the 35 s
of CPU SmolLM2's de-quantisation took; the copy made is the same."""

from __future__ import annotations

from collections import Counter


def test_a_conversion_reads_the_file_once_and_builds_one_name_map(tiny_llama, tmp_path, monkeypatch):
    import gguf

    from lexprobe.models.gguf import convert
    from tests.gguf_models import write_llama_gguf

    (tmp_path / "m").mkdir()
    file = write_llama_gguf(tiny_llama, tmp_path / "m" / "tiny.gguf", "F32")
    counts: Counter = Counter()
    reader, names = gguf.GGUFReader, gguf.get_tensor_name_map

    class CountingReader(reader):  # type: ignore[misc,valid-type]
        def __init__(self, *args, **kwargs):
            counts["reader"] += 1
            super().__init__(*args, **kwargs)

    def counting_names(*args, **kwargs):
        counts["name map"] += 1
        return names(*args, **kwargs)

    monkeypatch.setattr(gguf, "GGUFReader", CountingReader)
    monkeypatch.setattr(gguf, "get_tensor_name_map", counting_names)
    convert(file, tmp_path / "copy")
    assert counts == {"reader": 1, "name map": 1}, counts
    assert gguf.GGUFReader is CountingReader and gguf.get_tensor_name_map is counting_names  # put back
    assert (tmp_path / "copy" / "config.json").is_file() and (tmp_path / "copy" / "source.json").is_file()
