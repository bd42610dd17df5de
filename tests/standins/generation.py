"""A backend that serves only ``Generate``: it answers every request with ``answer`` (by default "1", the first
option), whatever its prompt, and keeps the requests it was asked; chat messages come as messages, as a chat
API takes them (no tokenizer, no input limit)."""

from __future__ import annotations


class GenerateOnly:
    name = "generate-only"
    kind = "chat"

    def __init__(self, answer: str = "1"):
        self.answer = answer
        self.asked: list = []

    def generations(self, requests, progress=False):
        self.asked += list(requests)
        return [self.answer for _ in requests]
