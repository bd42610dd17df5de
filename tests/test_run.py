"""Integration: `lexprobe run` with the real bundled MiniLM on a small WDLMPro sample."""

import json

from lexprobe.cli import main


def test_lexprobe_run_with_minilm(minilm_path, tmp_path, capsys):
    code = main(["run", "--only", "wdlmpro", "--sample", "8", "--out-dir", str(tmp_path)])
    assert code == 0
    result = json.loads((tmp_path / "wdlmpro.json").read_text())
    assert result["model"]["kind"] == "embedding"
    for task in ("w2d", "d2w"):
        m = result["metrics"][task]
        assert m["n"]["n"] == 8 and m["v"]["n"] == 8
        # a real sentence encoder beats the random expectation on W2D/D2W by a wide margin on average
        assert 0.0 <= m["all"]["rank_score"] <= 1.0
    w2d = result["metrics"]["w2d"]["all"]["rank_score"]
    assert w2d > 0.6, w2d
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert summary["failed"] == []
    assert "W2D (match word to definition)" in capsys.readouterr().out
