"""Choose runs for the tests, through the evaluation sequence as ``lexprobe <benchmark> eval`` runs them."""

from __future__ import annotations


def ask(bench, scorer, items, out=None, seed=0, pos="v", progress=False, **options):
    """``evaluate`` with ``--method choose``: ``items`` are WDLMPro groups asked W2D, or a CoDA21 data set
    asked on ``pos``; ``options``: ``ChooseOptions`` fields."""
    from lexprobe.benchmarks.coda21.config import CodaConfig
    from lexprobe.core.evaluate import evaluate
    from lexprobe.benchmarks.wdlmpro.config import WDLMProConfig, WDLMProItems
    from lexprobe.prompting.choose_cli import ChooseOptions

    choose = ChooseOptions(**options)
    if bench == "wdlmpro":
        config = WDLMProConfig(method="choose", task="w2d", seed=seed, choose=choose)
        return evaluate(bench, scorer, config, out, items=WDLMProItems(items, None), progress=progress)
    config = CodaConfig(method="choose", pos=pos, seed=seed, choose=choose)
    return evaluate(bench, scorer, config, out, items=items, progress=progress)


def interrupt(*args):
    """Stands in for a step to stop a run there (Ctrl-C): the units logged before it stay in the log."""
    raise KeyboardInterrupt


def prompt_ids(tokenizer, prompt, after: str = "") -> list[int]:
    """A choose prompt's token ids, encoded by hand: plain text with the tokenizer's special tokens, chat
    messages in the tokenizer's chat template (with the generation prompt) without them; ``after`` follows."""
    if isinstance(prompt, str):
        return list(tokenizer(prompt + after, add_special_tokens=True)["input_ids"])
    text = tokenizer.apply_chat_template([{"role": m.role, "content": m.content} for m in prompt], tokenize=False,
                                         add_generation_prompt=True)
    return list(tokenizer(text + after, add_special_tokens=False)["input_ids"])


def greedy_reference(scorer, ids: list[int], max_new_tokens: int) -> str:
    """Plain greedy generation: one prompt, a full forward pass per new token, argmax, no cache, no batch."""
    import torch

    new: list[int] = []
    with torch.inference_mode():
        for _ in range(max_new_tokens):
            logits = scorer.model(input_ids=torch.tensor([ids + new], device=scorer.device)).logits[0, -1]
            nxt = int(torch.argmax(logits.float()))
            if nxt in scorer.stop_ids():
                break
            new.append(nxt)
    return scorer.tokenizer.decode(new, skip_special_tokens=True)


def scripted(texts):
    """Stands in for a backend's ``generations``: the next of ``texts`` for each request asked."""
    answers = iter(texts)

    def generations(*args, progress=False):
        return [next(answers) for _ in args[-1]]

    return generations
