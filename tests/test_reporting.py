import json
import os

from lexprobe.reporting import format_table, write_json


def test_format_table_aligns_and_formats_floats():
    text = format_table(["name", "score"], [["a", 0.5], ["longer", 12.25]], title="T")
    lines = text.splitlines()
    assert lines[0] == "T"
    assert lines[1] == "name     score"  # numbers right-aligned under their header
    assert lines[2] == "------  ------"
    assert lines[3] == "a        0.500"
    assert lines[4] == "longer  12.250"


def test_write_json_is_atomic_and_readable(tmp_path):
    path = write_json(tmp_path / "sub" / "r.json", {"x": [1, 2]})
    assert json.loads(path.read_text()) == {"x": [1, 2]}
    assert not list(path.parent.glob("*.tmp"))
    umask = os.umask(0)
    os.umask(umask)
    assert path.stat().st_mode & 0o777 == 0o666 & ~umask
