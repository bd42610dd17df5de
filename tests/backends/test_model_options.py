"""Model options are declared once (``backends.options``) and checked there for the CLI and Python alike
(#33 D18, D20, D21): a bad value is the same one line from ``load_scorer`` as from the flag; an option of
another backend is refused naming its flag, the backends that take it and the one that does not, the same
words from both; ``--kind chat --tokenizer`` is refused, not ignored. Refusals come before any request."""

from __future__ import annotations

import math

import pytest

from lexprobe.backends import backend_for, backends
from lexprobe.backends.options import BY_NAME, MODEL_OPTIONS, check_options
from lexprobe.cli import build_parser, main
from lexprobe.errors import ModelError
from lexprobe.models import KINDS
from lexprobe.models import load_scorer

#: a valid value of each declared option (for the table-driven refusals)
VALID = {"kind": "causal", "device": "cpu", "dtype": "bfloat16", "batch_size": 4, "attn": "eager",
         "device_map": "auto", "served_model": "m", "tokenizer": "t", "concurrency": 4, "request_timeout": 5.0,
         "served_dtype": "bfloat16", "tensor_parallel_size": 2, "threads": 2, "seed": 3, "prefer": "token"}
REFERENCES = {"openai": "http://127.0.0.1:1/v1", "vllm": "vllm:/models/x", "llamacpp": "llamacpp:/models/x.gguf",
              "transformers": "/models/x"}


@pytest.mark.parametrize("option,value,reason", [
    ("concurrency", -1, "must be at least 1, got -1"), ("concurrency", -5, "must be at least 1"),
    ("concurrency", 0, "must be at least 1, got 0"), ("concurrency", 2.5, "expected a positive integer, got 2.5"),
    ("concurrency", True, "expected a positive integer, got True"), ("concurrency", "x", "expected a positive integer"),
    ("request_timeout", 0, "must be greater than 0"), ("request_timeout", -5, "must be greater than 0"),
    ("request_timeout", math.nan, "expected a finite number"), ("request_timeout", math.inf, "finite"),
    ("request_timeout", True, "expected a number"), ("batch_size", 0, "must be at least 1"),
    ("served_dtype", "fp8", "expected one of float32, bfloat16, float16, unknown"),
])
def test_a_bad_python_value_is_one_line_before_any_request(option, value, reason, fake):
    """D18: ``load_scorer(url, concurrency=-1)`` raised a raw ValueError mid-run; ``0`` was silently 8 workers,
    ``2.5`` truncated."""
    with pytest.raises(ModelError) as err:
        load_scorer(fake.url, **{option: value})
    text = str(err.value)
    assert reason in text and BY_NAME[option].flag in text and f"{option}=" in text and "\n" not in text, text
    assert fake.requests == []


@pytest.mark.parametrize("flag,value,reason", [("--concurrency", "0", "must be at least 1, got 0"),
                                               ("--concurrency", "2.5", "expected a positive integer, got '2.5'"),
                                               ("--request-timeout", "-5", "must be greater than 0, got -5"),
                                               ("--request-timeout", "nan", "expected a finite number")])
def test_the_cli_refuses_with_the_same_checker(flag, value, reason, fake, capsys):
    with pytest.raises(SystemExit) as done:
        main(["wdlmpro", "eval", "--model", fake.url, flag, value, "--out", "x.json"])
    assert done.value.code == 2 and f"argument {flag}: {reason}" in capsys.readouterr().err


def test_good_python_values_are_used(fake):
    remote = load_scorer(fake.url, concurrency=3, request_timeout="7.5", served_dtype="bfloat16")
    assert remote.concurrency == 3 and remote.endpoint.timeout == 7.5
    assert remote.backend_record["served_dtype"] == "bfloat16"


@pytest.mark.parametrize("backend", ["openai", "vllm", "llamacpp", "transformers"])
@pytest.mark.parametrize("option", [o.name for o in MODEL_OPTIONS])
def test_every_option_is_taken_or_refused_by_its_declaration(option, backend):
    """The table: each backend takes the options it declares (and the common ones); any other, given a value
    besides its CLI default, is one line naming its flag, every backend that takes it and this backend."""
    chosen = next(b for b in backends() if b.name == backend)
    declared = BY_NAME[option]
    given = {option: VALID[option]}
    kind = "causal"
    if declared.common or option in chosen.takes:
        assert check_options(chosen, REFERENCES[backend], kind, given, backends()) == given
        return
    with pytest.raises(ModelError) as err:
        check_options(chosen, REFERENCES[backend], kind, given, backends())
    text = str(err.value)
    takers = [b for b in backends() if option in b.takes]
    assert text.startswith(f"{declared.flag} {VALID[option]} applies to ") and f"not to {chosen.label}" in text
    assert all(f"{b.label} (--model {b.form})" in text for b in takers) and takers
    others = [b for b in backends() if b not in takers and b is not chosen]
    assert not any(f"applies to {b.label}" in text or f"and to {b.label}" in text for b in others)
    # its CLI default (the CLI always passes --device auto, --dtype float32) and None are dropped, not refused
    for neutral in {declared.default, None}:
        assert option not in check_options(chosen, REFERENCES[backend], kind, {option: neutral}, backends())


def test_the_cli_and_python_refusals_are_the_same_words(fake, tiny_llama, capsys):
    """D20: locally "--tensor-parallel-size/--concurrency apply to an endpoint URL or vllm: model", yet the
    endpoint refused ``tensor_parallel_size`` (the Python spelling) and ``vllm:`` refused ``concurrency``."""
    cases = [(fake.url, "--tensor-parallel-size", "2", {"tensor_parallel_size": 2}),
             (str(tiny_llama), "--concurrency", "4", {"concurrency": 4}),
             ("vllm:" + str(tiny_llama), "--concurrency", "4", {"concurrency": 4}),
             (str(tiny_llama), "--request-timeout", "3", {"request_timeout": 3}),
             (fake.url, "--attn", "eager", {"attn": "eager"})]
    for model, flag, value, python in cases:
        assert main(["wdlmpro", "eval", "--model", model, flag, value, "--out", "x.json"]) == 2
        cli = capsys.readouterr().err.strip().removeprefix("lexprobe: error: ")
        with pytest.raises(ModelError) as err:
            load_scorer(model, **python)
        assert cli == str(err.value) and cli.startswith(f"{flag} ") and " applies to " in cli, (cli, str(err.value))
        backend = backend_for(model)
        assert f"not to {backend.label} (--model {model})" in cli
    assert fake.requests == []


def test_chat_with_a_tokenizer_is_refused_not_ignored(fake, tmp_path, capsys):
    """D21: ``--kind chat --tokenizer /nonexistent`` exited 0 (neither refused nor recorded)."""
    assert main(["wdlmpro", "eval", "--model", fake.url, "--kind", "chat", "--tokenizer", "/nonexistent",
                 "--method", "choose", "--reading", "generation", "--out", str(tmp_path / "c.json")]) == 2
    err = capsys.readouterr().err.strip()
    assert "--tokenizer /nonexistent applies to --kind causal, not to --kind chat" in err and "drop --tokenizer" in err
    assert len(err.splitlines()) == 1 and fake.requests == []


def test_the_cli_options_are_the_declared_ones():
    parser = build_parser(["wdlmpro", "eval", "--out", "x"])
    sub = next(a for a in parser._actions if a.dest == "command").choices["wdlmpro"]
    evals = next(a for a in sub._actions if getattr(a, "choices", None) and "eval" in a.choices).choices["eval"]
    flags = {s: a for a in evals._actions for s in a.option_strings}
    for option in MODEL_OPTIONS:
        if option.flag is None:
            continue
        action = flags[option.flag]
        assert action.dest == option.name and action.default == option.default
        want = KINDS if option.name == "kind" else option.choices
        assert (tuple(action.choices) if action.choices else None) == want
    names = {o.name for o in MODEL_OPTIONS}
    assert all(b.takes <= names for b in backends())
