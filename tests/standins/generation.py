"""A backend that serves only generation: it answers every question with ``answer`` (by default "1", the first
option). Its tokenizer keeps chat messages as they are (the server's business), as a chat API's does."""

from __future__ import annotations


class _Wire:
    chat_template = "(a chat API's)"

    def apply_chat_template(self, messages, tokenize=False, add_generation_prompt=True):
        return "\n".join(f"{m['role']}: {m['content']}" for m in messages) + "\nassistant:"


class GenerateOnly:
    name = "generate-only"
    kind = "chat"
    max_length = None

    def __init__(self, answer: str = "1"):
        self.answer = answer
        self.tokenizer = _Wire()
        self.prompts: list[str] = []

    def generate(self, prompts, max_new_tokens, stop=None, templated=False):
        self.prompts += list(prompts)
        return [self.answer for _ in prompts]

    def generations(self, requests, progress=False):
        return self.generate([r.prompt if isinstance(r.prompt, str) else str(r.prompt) for r in requests], 8)
