import pytest

from lexprobe.core.human_items import AnswerError, check_answer, public_items
from lexprobe.human.store import AnswerStore
from tests.human.helpers import item_set


def test_wdlmpro_items_are_the_groups_with_a_hidden_answer(tmp_path):
    s = item_set(tmp_path, "wdlmpro")
    assert s["benchmark"] == "wdlmpro"
    assert sorted(it["id"] for it in s["items"]) == ["d2w/1", "d2w/2", "w2d/1", "w2d/2"]
    w2d = next(it for it in s["items"] if it["id"] == "w2d/1")
    gold = next(o for o in w2d["options"] if o["label"] == w2d["answer"])
    assert gold["synset"] == w2d["target"] and gold["text"] == f"the definition of {w2d['word']}"
    public = {it["id"]: it for it in public_items(s)}
    assert "answer" not in public["w2d/1"] and all("synset" not in o for o in public["w2d/1"]["options"])
    assert item_set(tmp_path, "wdlmpro") == s  # same seed, same sheet


def test_coda_items_hide_the_target_and_shuffle_definitions(tmp_path):
    s = item_set(tmp_path, "coda21", subset=2)
    assert len(s["items"]) == 2 and {it["pos"] for it in s["items"]} == {"n"}
    item = next(it for it in s["items"] if "dust.n.01" in it["synsets"])
    assert item["contexts"][0] == "his horse kicking up clouds of _____ , shouting :"
    order = item["definition_order"]
    assert sorted(order) == [0, 1, 2]
    # the gold label of context c names the definition of candidate c
    for c, label in enumerate(item["answer"]):
        shown = next(d for d in item["definitions"] if d["label"] == label)
        assert shown["text"] == item["definitions"][order.index(c)]["text"]
    assert "answer" not in public_items(s)[0] and "definition_order" not in public_items(s)[0]


def test_check_answer_refuses_every_malformed_answer(tmp_path):
    s = item_set(tmp_path, "coda21", subset=2)
    align = next(it for it in s["items"] if "dust.n.01" in it["synsets"])  # k = 3, labels A-C
    assert check_answer(align, ["B", "A", "C"]) == ["B", "A", "C"]
    for bad, why in [(["A", "B"], "each of the 3"), (["A", "A", "B"], "one-to-one"), (["A", "B", "Z"], "labels"),
                     ("ABC", "each of the 3"), (None, "each of the 3"), ([1, 2, 3], "labels")]:
        with pytest.raises(AnswerError, match=why):
            check_answer(align, bad)
    choice = item_set(tmp_path, "wdlmpro")["items"][0]
    assert check_answer(choice, "a") == "a"
    for bad in ("z", ["a"], None, 1):
        with pytest.raises(AnswerError, match="option labels"):
            check_answer(choice, bad)


def test_store_keeps_one_row_per_participant_and_item_across_reopen(tmp_path):
    s = item_set(tmp_path, "wdlmpro")
    db = tmp_path / "a.sqlite"
    store = AnswerStore(db)
    store.add_item_set(s)
    store.save_answer(s["set_id"], "p1", "w2d/1", "a")
    store.save_answer(s["set_id"], "p1", "w2d/1", "b")  # changed mind: replaced, not added
    store.save_answer(s["set_id"], "p2", "w2d/1", "c")
    store.close()
    again = AnswerStore(db)
    assert again.answers(s["set_id"]) == {"p1": {"w2d/1": "b"}, "p2": {"w2d/1": "c"}}
    assert again.item_sets() == [s]
    (count,) = again._db.execute("SELECT COUNT(*) FROM answers").fetchone()
    assert count == 2


def test_coda_paper_subset_is_the_s20_file_the_models_get(tmp_path, shared_data):
    """Same groups, order and ids as `coda sample-human` (S20 contains Table 5's material.n.01 group)."""
    from lexprobe.benchmarks.coda21.dataset import load_coda
    from lexprobe.benchmarks.coda21.human import write_sample

    source = shared_data / "coda21" / "CoDA-clean-easy.json"
    s = item_set(tmp_path, "coda21", subset="paper", data=str(source))
    s20 = load_coda(write_sample(source, tmp_path / "s20.json") and tmp_path / "s20.json")
    assert [it["id"] for it in s["items"]] == [g.id for g in s20.groups] and len(s["items"]) == 20
    assert [it["synsets"] for it in s["items"]] == [[c.synset for c in g.candidates] for g in s20.groups]
    assert any(it["ancestor"] == "material.n.01" and len(it["contexts"]) == 7 for it in s["items"])
