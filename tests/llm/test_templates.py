"""Prompt construction, checked character for character for every shipped template,
plain and through two chat templates (Llama-style with BOS, ChatML without): the prompt a template
builds (text, or chat messages) as the backend's tokenizer side turns it into text with the answer
prefix (``CausalTokenization.prompt_text``)."""

import json
import re

import pytest

from lexprobe.benchmarks.coda21.choose import coda_question
from lexprobe.benchmarks.wdlmpro.choose import question as wdlmpro_question
from lexprobe.errors import DataError, ModelError
from lexprobe.prompting.templates import build_prompt, load_template, option_labels, shipped
from lexprobe.scorers.causal import CausalTokenization
from tests.tiny_models import _gpt2_tokenizer, _llama_tokenizer, _qwen2_tokenizer

QUESTIONS = {
    "w2d": lambda t: wdlmpro_question(t, "w2d", "beckon", ["signal with the hands or nod", "signal by winking"]),
    "d2w": lambda t: wdlmpro_question(t, "d2w", "signal by winking", ["beckon", "wink"]),
    "coda": lambda t: coda_question(t, ["they ___ all night", "nothing ___ in the house"],
                                    ["move very slightly", "move in a pattern"]),
}

GOLDEN = {
    ('default', 'w2d', 'plain'): (
        'Which definition fits the word "beckon"?\n'
        '1. signal with the hands or nod\n'
        '2. signal by winking\n'
        'Reply with the number of the definition only.\n'
        'Answer:'
    ),
    ('default', 'w2d', 'llama'): (
        '<s>[user] Which definition fits the word "beckon"?\n'
        '1. signal with the hands or nod\n'
        '2. signal by winking\n'
        'Reply with the number of the definition only.\n'
        '[assistant] Answer:'
    ),
    ('default', 'w2d', 'qwen2'): (
        '<|im_start|>user\n'
        'Which definition fits the word "beckon"?\n'
        '1. signal with the hands or nod\n'
        '2. signal by winking\n'
        'Reply with the number of the definition only.<|im_end|>\n'
        '<|im_start|>assistant\n'
        'Answer:'
    ),
    ('default', 'd2w', 'plain'): (
        'Which word has the definition "signal by winking"?\n'
        '1. beckon\n'
        '2. wink\n'
        'Reply with the number of the word only.\n'
        'Answer:'
    ),
    ('default', 'd2w', 'llama'): (
        '<s>[user] Which word has the definition "signal by winking"?\n'
        '1. beckon\n'
        '2. wink\n'
        'Reply with the number of the word only.\n'
        '[assistant] Answer:'
    ),
    ('default', 'd2w', 'qwen2'): (
        '<|im_start|>user\n'
        'Which word has the definition "signal by winking"?\n'
        '1. beckon\n'
        '2. wink\n'
        'Reply with the number of the word only.<|im_end|>\n'
        '<|im_start|>assistant\n'
        'Answer:'
    ),
    ('default', 'coda', 'plain'): (
        'In each numbered sentence a word was replaced by ___. The hidden words are different.\n'
        'Sentences:\n'
        '1. they ___ all night\n'
        '2. nothing ___ in the house\n'
        'Definitions:\n'
        'A. move very slightly\n'
        'B. move in a pattern\n'
        'Match each sentence to the definition of its hidden word; use each definition once. Reply'
        ' on one line in the form 1: A, 2: B, ...\n'
        'Answer:'
    ),
    ('default', 'coda', 'llama'): (
        '<s>[user] In each numbered sentence a word was replaced by ___. The hidden words are different.\n'
        'Sentences:\n'
        '1. they ___ all night\n'
        '2. nothing ___ in the house\n'
        'Definitions:\n'
        'A. move very slightly\n'
        'B. move in a pattern\n'
        'Match each sentence to the definition of its hidden word; use each definition once. Reply'
        ' on one line in the form 1: A, 2: B, ...\n'
        '[assistant] Answer:'
    ),
    ('default', 'coda', 'qwen2'): (
        '<|im_start|>user\n'
        'In each numbered sentence a word was replaced by ___. The hidden words are different.\n'
        'Sentences:\n'
        '1. they ___ all night\n'
        '2. nothing ___ in the house\n'
        'Definitions:\n'
        'A. move very slightly\n'
        'B. move in a pattern\n'
        'Match each sentence to the definition of its hidden word; use each definition once. Reply'
        ' on one line in the form 1: A, 2: B, ...<|im_end|>\n'
        '<|im_start|>assistant\n'
        'Answer:'
    ),
    ('letters', 'w2d', 'plain'): (
        'Question: which definition fits the word "beckon"?\n'
        'A. signal with the hands or nod\n'
        'B. signal by winking\n'
        'Reply with the letter of the definition only.\n'
        'Answer:'
    ),
    ('letters', 'w2d', 'llama'): (
        '<s>[user] Question: which definition fits the word "beckon"?\n'
        'A. signal with the hands or nod\n'
        'B. signal by winking\n'
        'Reply with the letter of the definition only.\n'
        '[assistant] Answer:'
    ),
    ('letters', 'w2d', 'qwen2'): (
        '<|im_start|>user\n'
        'Question: which definition fits the word "beckon"?\n'
        'A. signal with the hands or nod\n'
        'B. signal by winking\n'
        'Reply with the letter of the definition only.<|im_end|>\n'
        '<|im_start|>assistant\n'
        'Answer:'
    ),
    ('letters', 'd2w', 'plain'): (
        'Question: which word has the definition "signal by winking"?\n'
        'A. beckon\n'
        'B. wink\n'
        'Reply with the letter of the word only.\n'
        'Answer:'
    ),
    ('letters', 'd2w', 'llama'): (
        '<s>[user] Question: which word has the definition "signal by winking"?\n'
        'A. beckon\n'
        'B. wink\n'
        'Reply with the letter of the word only.\n'
        '[assistant] Answer:'
    ),
    ('letters', 'd2w', 'qwen2'): (
        '<|im_start|>user\n'
        'Question: which word has the definition "signal by winking"?\n'
        'A. beckon\n'
        'B. wink\n'
        'Reply with the letter of the word only.<|im_end|>\n'
        '<|im_start|>assistant\n'
        'Answer:'
    ),
    ('letters', 'coda', 'plain'): (
        'In each numbered sentence a word was replaced by ___. The hidden words are different.\n'
        'Sentences:\n'
        '1. they ___ all night\n'
        '2. nothing ___ in the house\n'
        'Definitions:\n'
        'A. move very slightly\n'
        'B. move in a pattern\n'
        'Match each sentence to the definition of its hidden word; use each definition once. Reply'
        ' on one line in the form 1: A, 2: B, ...\n'
        'Answer:'
    ),
    ('letters', 'coda', 'llama'): (
        '<s>[user] In each numbered sentence a word was replaced by ___. The hidden words are different.\n'
        'Sentences:\n'
        '1. they ___ all night\n'
        '2. nothing ___ in the house\n'
        'Definitions:\n'
        'A. move very slightly\n'
        'B. move in a pattern\n'
        'Match each sentence to the definition of its hidden word; use each definition once. Reply'
        ' on one line in the form 1: A, 2: B, ...\n'
        '[assistant] Answer:'
    ),
    ('letters', 'coda', 'qwen2'): (
        '<|im_start|>user\n'
        'In each numbered sentence a word was replaced by ___. The hidden words are different.\n'
        'Sentences:\n'
        '1. they ___ all night\n'
        '2. nothing ___ in the house\n'
        'Definitions:\n'
        'A. move very slightly\n'
        'B. move in a pattern\n'
        'Match each sentence to the definition of its hidden word; use each definition once. Reply'
        ' on one line in the form 1: A, 2: B, ...<|im_end|>\n'
        '<|im_start|>assistant\n'
        'Answer:'
    ),
    ('dictionary', 'w2d', 'plain'): (
        'You are a careful lexicographer. Answer exactly in the format asked for.\n'
        '\n'
        'A dictionary lists several senses. Which of these is the meaning of "beckon"?\n'
        '1. signal with the hands or nod\n'
        '2. signal by winking\n'
        'Give only the number.\n'
        'Answer:'
    ),
    ('dictionary', 'w2d', 'llama'): (
        '<s>[system] You are a careful lexicographer. Answer exactly in the format asked for.\n'
        '[user] A dictionary lists several senses. Which of these is the meaning of "beckon"?\n'
        '1. signal with the hands or nod\n'
        '2. signal by winking\n'
        'Give only the number.\n'
        '[assistant] Answer:'
    ),
    ('dictionary', 'w2d', 'qwen2'): (
        '<|im_start|>system\n'
        'You are a careful lexicographer. Answer exactly in the format asked for.<|im_end|>\n'
        '<|im_start|>user\n'
        'A dictionary lists several senses. Which of these is the meaning of "beckon"?\n'
        '1. signal with the hands or nod\n'
        '2. signal by winking\n'
        'Give only the number.<|im_end|>\n'
        '<|im_start|>assistant\n'
        'Answer:'
    ),
    ('dictionary', 'd2w', 'plain'): (
        'You are a careful lexicographer. Answer exactly in the format asked for.\n'
        '\n'
        'A dictionary entry reads: "signal by winking". Which headword does it define?\n'
        '1. beckon\n'
        '2. wink\n'
        'Give only the number.\n'
        'Answer:'
    ),
    ('dictionary', 'd2w', 'llama'): (
        '<s>[system] You are a careful lexicographer. Answer exactly in the format asked for.\n'
        '[user] A dictionary entry reads: "signal by winking". Which headword does it define?\n'
        '1. beckon\n'
        '2. wink\n'
        'Give only the number.\n'
        '[assistant] Answer:'
    ),
    ('dictionary', 'd2w', 'qwen2'): (
        '<|im_start|>system\n'
        'You are a careful lexicographer. Answer exactly in the format asked for.<|im_end|>\n'
        '<|im_start|>user\n'
        'A dictionary entry reads: "signal by winking". Which headword does it define?\n'
        '1. beckon\n'
        '2. wink\n'
        'Give only the number.<|im_end|>\n'
        '<|im_start|>assistant\n'
        'Answer:'
    ),
    ('dictionary', 'coda', 'plain'): (
        'You are a careful lexicographer. Answer exactly in the format asked for.\n'
        '\n'
        'Each sentence below has one word hidden as ___; every sentence hides a different word.\n'
        '1. they ___ all night\n'
        '2. nothing ___ in the house\n'
        'Dictionary definitions:\n'
        'A. move very slightly\n'
        'B. move in a pattern\n'
        'Pair every sentence with the definition of its hidden word, each definition used once.'
        ' Give only the pairs on one line, like 1: A, 2: B, ...\n'
        'Answer:'
    ),
    ('dictionary', 'coda', 'llama'): (
        '<s>[system] You are a careful lexicographer. Answer exactly in the format asked for.\n'
        '[user] Each sentence below has one word hidden as ___; every sentence hides a different word.\n'
        '1. they ___ all night\n'
        '2. nothing ___ in the house\n'
        'Dictionary definitions:\n'
        'A. move very slightly\n'
        'B. move in a pattern\n'
        'Pair every sentence with the definition of its hidden word, each definition used once.'
        ' Give only the pairs on one line, like 1: A, 2: B, ...\n'
        '[assistant] Answer:'
    ),
    ('dictionary', 'coda', 'qwen2'): (
        '<|im_start|>system\n'
        'You are a careful lexicographer. Answer exactly in the format asked for.<|im_end|>\n'
        '<|im_start|>user\n'
        'Each sentence below has one word hidden as ___; every sentence hides a different word.\n'
        '1. they ___ all night\n'
        '2. nothing ___ in the house\n'
        'Dictionary definitions:\n'
        'A. move very slightly\n'
        'B. move in a pattern\n'
        'Pair every sentence with the definition of its hidden word, each definition used once.'
        ' Give only the pairs on one line, like 1: A, 2: B, ...<|im_end|>\n'
        '<|im_start|>assistant\n'
        'Answer:'
    ),
}


class Tokenizer(CausalTokenization):
    """The tokenisation rule of every causal backend, on a bare tokenizer."""

    def __init__(self, tokenizer, name: str = "tiny"):
        self.tokenizer, self.name = tokenizer, name


def text(t, question, tok=None) -> str:
    """The text the model continues: the prompt built with ``--chat`` where ``tok`` is given, the answer prefix."""
    return Tokenizer(tok).prompt_text(build_prompt(t, question, chat=tok is not None), t.answer)[0]


@pytest.fixture(scope="module")
def tokenizers():
    return {"plain": None, "llama": _llama_tokenizer()[0], "qwen2": _qwen2_tokenizer()[0]}


@pytest.mark.parametrize("key", sorted(GOLDEN))
def test_prompt_is_exactly_the_golden_string(key, tokenizers):
    name, task, mode = key
    template = shipped()[name]
    tok = tokenizers[mode]
    assert text(template, QUESTIONS[task](template), tok) == GOLDEN[key]


def test_every_shipped_template_has_goldens():
    assert {k[0] for k in GOLDEN} == set(shipped())


def test_template_file_overrides_default_fields(tmp_path):
    path = tmp_path / "mine.json"
    path.write_text(json.dumps({"w2d": "Word: {word}\n{options}", "option": "({label}) {text}", "answer": "=>"}))
    t = load_template(str(path))
    assert t.name == "mine"
    assert text(t, wdlmpro_question(t, "w2d", "nod", ["bend", "wink"])) == "Word: nod\n(1) bend\n(2) wink\n=>"
    assert t.coda == shipped()["default"].coda  # not given: the default's


@pytest.mark.parametrize("content, message", [
    ({"w2d": "{word} {colour}"}, "unknown placeholder(s) colour"),
    ({"prompt": "x"}, "unknown field(s) prompt"),
    ({"labels": "roman"}, "must be one of numbers, letters"),
    ({"d2w": "{definition"}, "not a valid format string"),
    ([1, 2], "must hold a JSON object"),
])
def test_bad_template_files_are_one_line_errors(tmp_path, content, message):
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(content))
    with pytest.raises(DataError, match=re.escape(message)):
        load_template(str(path))


def test_unknown_template_name():
    with pytest.raises(DataError, match="neither a shipped template"):
        load_template("nonexistent")


def test_chat_needs_a_chat_template():
    tok = _gpt2_tokenizer()[0]
    question = QUESTIONS["w2d"](shipped()["default"])
    with pytest.raises(ModelError, match="model 'tiny-gpt2' has no chat template.*drop --chat"):
        Tokenizer(tok, "tiny-gpt2").prompt_text(build_prompt(shipped()["default"], question, chat=True))
    assert text(shipped()["default"], question, _qwen2_tokenizer()[0])  # has one: no error


def test_labels():
    assert option_labels(3, "numbers") == ["1", "2", "3"]
    assert option_labels(3, "letters") == ["A", "B", "C"]
    with pytest.raises(DataError, match="lower --max-candidates"):
        option_labels(27, "letters")


def test_chat_template_that_rejects_system_messages():
    tok = _qwen2_tokenizer()[0]
    tok.chat_template = ("{% for m in messages %}{% if m['role'] == 'system' %}"
                         "{{ raise_exception('System role not supported') }}{% endif %}{{ m['content'] }}{% endfor %}")
    t = shipped()["dictionary"]
    with pytest.raises(ModelError, match="System role not supported.*without `system`"):
        text(t, QUESTIONS["w2d"](t), tok)
