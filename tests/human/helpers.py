"""Small item sets for the human-page tests: two WDLMPro groups, the hand-made CoDA21 file."""

from __future__ import annotations

from pathlib import Path

from lexprobe.benchmarks.wdlmpro.dataset import Candidate, SynsetGroup, write_jsonl
from lexprobe.human.cli import Serve
from tests.benchmarks.coda21.helpers import write_small


def _group(target: str, word: str, others: list[tuple[str, str, str]]) -> SynsetGroup:
    cands = [Candidate(target, word, f"the definition of {word}")]
    cands += [Candidate(s, w, d) for s, w, d in others]
    return SynsetGroup(target, "n", word, tuple(cands))


GROUPS = [
    _group("dog.n.01", "dog", [("cat.n.01", "cat", "a small feline"), ("wolf.n.01", "wolf", "a wild canine"),
                                ("fox.n.01", "fox", "a red canine")]),
    _group("oak.n.01", "oak", [("elm.n.01", "elm", "a shade tree"), ("ash.n.01", "ash", "a tree of the olive family")]),
]


def wdlmpro_data(tmp_path: Path) -> Path:
    return write_jsonl(GROUPS, tmp_path / "groups.jsonl")


def serve_args(tmp_path: Path, benchmark: str, **kw) -> Serve:
    """The options of ``lexprobe human serve`` (the declared ``Serve``) on a small data file."""
    data = wdlmpro_data(tmp_path) if benchmark == "wdlmpro" else write_small(tmp_path / "coda.json")
    base = dict(benchmark=benchmark, subset=2, data=str(data), db=str(tmp_path / "answers.sqlite"), port=0)
    base.update(kw)
    return Serve(**base)


def item_set(tmp_path: Path, benchmark: str, **kw) -> dict:
    from lexprobe.human.cli import item_set_from_args

    return item_set_from_args(serve_args(tmp_path, benchmark, **kw))


class RunningServer:
    """A human-page server in a background thread (port chosen by the OS unless given)."""

    def __init__(self, item_set: dict, db: Path, port: int = 0):
        import threading

        from lexprobe.human.server import HumanApp, make_server
        from lexprobe.human.store import AnswerStore

        self.store = AnswerStore(db)
        self.app = HumanApp(item_set, self.store)
        self.server = make_server(self.app, "127.0.0.1", port)
        self.port = self.server.server_address[1]
        self.url = f"http://127.0.0.1:{self.port}/"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()
        self.store.close()
        self.thread.join(timeout=5)
