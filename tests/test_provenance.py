import hashlib

from lexprobe.provenance import file_sha256, items_digest, model_revision


def test_items_digest_depends_on_content_not_key_order():
    assert items_digest({"a": 1, "b": [1, 2]}) == items_digest({"b": [1, 2], "a": 1})
    assert items_digest([{"w": "dog"}]) != items_digest([{"w": "dog "}])


def test_model_revision_tracks_weight_contents(tmp_path):
    model = tmp_path / "m"
    model.mkdir()
    (model / "config.json").write_text("{}")
    (model / "model.safetensors").write_bytes(b"abc")
    first = model_revision(str(model))
    assert first.startswith("sha256:")
    (model / "model.safetensors").write_bytes(b"abd")
    assert model_revision(str(model)) != first
    assert model_revision("random") == "random"
    assert model_revision("org/not-local") == "name:org/not-local"
    snap = tmp_path / "snapshots" / ("a" * 40)
    snap.mkdir(parents=True)
    assert model_revision(str(snap)) == "hub:" + "a" * 40


def test_file_sha256(tmp_path):
    f = tmp_path / "x"
    f.write_bytes(b"hello")
    assert file_sha256(f) == hashlib.sha256(b"hello").hexdigest()
