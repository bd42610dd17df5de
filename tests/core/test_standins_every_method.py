"""Capabilities are request types (issue #37's done-when): a backend of one file that serves only one request
type runs every method of every registered benchmark that can be served by it — ``Continuation`` every
likelihood method, ``Generate`` every ask-to-choose method, ``Embed`` every embedding method — with a valid
schema-2 result whose numbers came through that backend; every other method is refused in one line before
any request. The stand-ins' own numbers are checked by hand per benchmark (tests/benchmarks/...); here the
point is that no benchmark reaches past the request layer."""

from __future__ import annotations

from dataclasses import replace

import pytest

from lexprobe.core import result_schema
from lexprobe.core import registry
from lexprobe.core.evaluate import evaluate
from lexprobe.asking.engine import serves
from lexprobe.asking.requests import Continuation, Embed, Generate
from lexprobe.errors import ModelError
from tests.standins.continuation import ContinuationOnly
from tests.standins.embedding import EmbedOnly
from tests.standins.generation import GenerateOnly
from tests.test_contract import _items_and_config, inputs  # noqa: F401  (the module-scoped fixture)

#: one backend per request type, one file each (tests/standins/)
STANDINS = {Continuation: ContinuationOnly, Generate: GenerateOnly, Embed: EmbedOnly}


def served_alone(method, kind) -> bool:
    """Can a backend that serves only ``kind`` run ``method`` (one of its alternatives is ``kind`` alone)?"""
    return any(option == (kind,) for option in method.requests)


def every_method():
    return [(bench.meta.name, name) for bench in registry.all_benchmarks() for name in bench.methods]


def test_every_likelihood_choose_and_embedding_method_is_served_by_one_request_type():
    """The done-when's list, read from the methods' own declarations (a method that stops declaring its
    request types would drop out of the test below silently; this keeps the list honest)."""
    served = {(b, m): [k.__name__ for k in STANDINS if served_alone(registry.get(b).methods[m], k)]
              for b, m in every_method()}
    for bench in ("wdlmpro", "coda21", "wsd"):
        assert "Continuation" in served[(bench, "likelihood")], bench
        assert "Generate" in served[(bench, "choose")], bench
    for bench, method in (("wdlmpro", "likelihood"), ("coda21", "likelihood"), ("wsd", "embedding")):
        assert "Embed" in served[(bench, method)], (bench, method)


@pytest.mark.parametrize("kind", list(STANDINS), ids=lambda k: k.__name__)
@pytest.mark.parametrize("name,method", every_method())
def test_a_one_request_type_backend_runs_or_refuses_each_method(name, method, kind, inputs, tmp_path):  # noqa: F811
    bench = registry.get(name)
    backend = STANDINS[kind]()
    items, config = _items_and_config(name, method, inputs)
    if method == "choose":  # its readings: label likelihood (Continuation) and generation (Generate), as asked
        config = replace(config, choose=replace(config.choose, reading="generation" if kind is Generate else
                                                "likelihood"))
    if not served_alone(bench.methods[method], kind):
        with pytest.raises(ModelError) as refused:
            evaluate(bench, backend, config, items=items, progress=False)
        assert "needs" in str(refused.value) and "\n" not in str(refused.value)
        assert not backend.asked  # refused before any request
        return
    assert serves(backend, kind)
    result = evaluate(bench, backend, config, tmp_path / "r.json", items=items, progress=False)
    assert result_schema.problems(result) == [], (name, method)
    assert result["method"] == method and result["instances"]
    assert backend.asked and {type(r) for r in backend.asked} == {kind}  # the numbers came through the stand-in
