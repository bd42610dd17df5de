"""A hand-made WordNet stand-in with the few methods the group builder uses."""

from __future__ import annotations


class FakeSynset:
    def __init__(self, name: str, definition: str, wn: "FakeWordNet"):
        self._name, self._definition, self._wn = name, definition, wn
        self._hypernyms: list[str] = []
        self._hyponyms: list[str] = []

    def name(self) -> str:
        return self._name

    def definition(self) -> str:
        return self._definition

    def pos(self) -> str:
        return self._name.split(".")[-2]

    # reversed on purpose: the builder must not depend on the order it is given
    def hypernyms(self):
        return [self._wn.synset(n) for n in reversed(self._hypernyms)]

    def hyponyms(self):
        return [self._wn.synset(n) for n in reversed(self._hyponyms)]

    def __repr__(self) -> str:
        return f"FakeSynset({self._name!r})"


class FakeWordNet:
    def __init__(self):
        self._synsets: dict[str, FakeSynset] = {}

    def add(self, name: str, definition: str, parents: tuple[str, ...] = ()) -> FakeSynset:
        s = FakeSynset(name, definition, self)
        self._synsets[name] = s
        for p in parents:
            s._hypernyms.append(p)
            self._synsets[p]._hyponyms.append(name)
        return s

    def synset(self, name: str) -> FakeSynset:
        return self._synsets[name]

    def all_synsets(self, pos=None):
        return (s for s in self._synsets.values() if pos is None or s.pos() == pos)

    def get_version(self) -> str:
        return "toy"


def toy_wordnet() -> FakeWordNet:
    """Two parents; t.n.01 sits under both.

    root.n.01 > t.n.01, a.n.01, t.n.02 (same word as t.n.01), b.n.01 (same definition
    as a.n.01), c.n.01;  other.n.01 > t.n.01, a.n.01 (again), d.n.01, e_f.n.01.
    """
    wn = FakeWordNet()
    wn.add("root.n.01", "the root")
    wn.add("other.n.01", "another parent")
    wn.add("t.n.01", "target def", ("root.n.01", "other.n.01"))
    wn.add("a.n.01", "def a", ("root.n.01", "other.n.01"))
    wn.add("t.n.02", "def t2", ("root.n.01",))
    wn.add("b.n.01", "def a", ("root.n.01",))
    wn.add("c.n.01", "def c", ("root.n.01",))
    wn.add("d.n.01", "def d", ("other.n.01",))
    wn.add("e_f.n.01", "def e", ("other.n.01",))
    return wn
