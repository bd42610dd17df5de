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


def test_token_budget_bounds_padded_batches():
    items = ["a" * n for n in (10, 9, 3, 3, 2, 2, 2, 1)]
    seen = []

    def fn(batch):
        seen.append([len(x) for x in batch])
        return [len(x) for x in batch]

    assert run_batched(items, fn, batch_size=100, length=len, max_tokens=10) == [len(x) for x in items]
    assert all(len(b) * max(b) <= 10 for b in seen)
    assert seen[0] == [10] and seen[1] == [9]


def test_find_token_budget_halves_to_what_fits():
    from lexprobe.batching import find_token_budget

    tried = []

    def probe(budget):
        tried.append(budget)
        if budget > 1000:
            raise RuntimeError("CUDA out of memory")
        return budget - budget % 7  # whole rows of 7 tokens

    assert find_token_budget(probe, start=8192) == 511
    assert tried == [8192, 4096, 2048, 1024, 512]


def test_pad_batch_right_and_left():
    from lexprobe.batching import pad_batch

    ids, mask = pad_batch([[5, 6, 7], [8]], pad_id=0)
    assert ids.tolist() == [[5, 6, 7], [8, 0, 0]]
    assert mask.tolist() == [[1, 1, 1], [1, 0, 0]]
    ids, mask = pad_batch([(5, 6, 7), (8,)], pad_id=9, left=True)
    assert ids.tolist() == [[5, 6, 7], [9, 9, 8]]
    assert mask.tolist() == [[1, 1, 1], [0, 0, 1]]
