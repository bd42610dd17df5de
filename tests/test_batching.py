import pytest

from lexprobe.batching import longest_first, run_batched


def test_longest_first_is_stable():
    assert longest_first(["aa", "b", "cccc", "dd"], len) == [2, 0, 3, 1]


def test_results_come_back_in_input_order():
    items = ["a", "bbb", "cc", "dddd", "e"]
    seen_batches = []

    def fn(batch):
        seen_batches.append(list(batch))
        return [x.upper() for x in batch]

    out = run_batched(items, fn, batch_size=2, length=len)
    assert out == [x.upper() for x in items]
    assert seen_batches[0] == ["dddd", "bbb"]  # longest first


def test_batch_size_halves_on_oom():
    sizes = []

    def fn(batch):
        sizes.append(len(batch))
        if len(batch) > 2:
            raise RuntimeError("CUDA out of memory. Tried to allocate 2 GiB")
        return [x * 2 for x in batch]

    assert run_batched(list(range(7)), fn, batch_size=8) == [x * 2 for x in range(7)]
    assert sizes[:3] == [7, 4, 2]  # 8 -> OOM, 4 -> OOM, 2 works


def test_other_errors_propagate():
    def fn(batch):
        raise RuntimeError("shape mismatch")

    with pytest.raises(RuntimeError, match="shape mismatch"):
        run_batched([1, 2], fn, batch_size=2)
