"""A small OpenAI-compatible server for tests (stdlib ``http.server`` in a thread), backed by an
in-process ``CausalLMScorer``: ``/v1/completions`` answers ``echo`` + ``logprobs`` with the model's
real log-probabilities and greedy generation with its real ``generate``, so the endpoint backend
can be compared with the in-process path without vLLM. Faults on demand: a storm of 500s or 429s,
death after N completion calls, a tokenizer that disagrees, a chat-only server, several models.
Every request is recorded (path, body, Authorization header); error bodies echo the header back,
as a careless server might, so a test can check the client never repeats it.
"""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


class FakeOpenAI:
    def __init__(self, scorer: Any, name: str = "fake-model", models: list[str] | None = None):
        self.scorer = scorer
        self.name = name
        self.models = models or [name]
        self.requests: list[tuple[str, dict, str | None]] = []
        self.storm: int | None = None  # answer every call with this status (500, 429, ...)
        self.storm_left = -1  # how many more calls the storm lasts (-1: for ever)
        self.die_after: int | None = None  # completions calls answered before the server "dies" (500 for ever)
        self.completions_calls = 0
        self.chat_only = False
        self.wrong_tokens = False
        self.lock = threading.Lock()
        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"

    def __enter__(self) -> "FakeOpenAI":
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()

    def calls(self, path: str) -> list[dict]:
        return [body for p, body, _ in self.requests if p == path]

    # ------------------------------------------------------------------ answers
    def answer(self, method: str, path: str, body: dict, auth: str | None) -> tuple[int, Any]:
        with self.lock:
            self.requests.append((path, body, auth))
            if self.storm is not None and self.storm_left != 0:
                self.storm_left -= 1
                return self.storm, {"error": {"message": f"overloaded (you sent {auth})"}}
            if path == "/v1/completions":
                if self.chat_only:
                    return 404, {"error": {"message": "not found"}}
                self.completions_calls += 1
                if self.die_after is not None and self.completions_calls > self.die_after:
                    return 500, {"error": {"message": f"engine dead (auth {auth})"}}
        if path == "/v1/models":
            return 200, {"object": "list", "data": [{"id": m, "object": "model", "root": m, "owned_by": "fake",
                                                      "max_model_len": self.scorer.max_length} for m in self.models]}
        if path == "/version":
            return 404, {"error": {"message": "no version"}}
        if body.get("model") not in self.models:
            return 404, {"error": {"message": f"The model `{body.get('model')}` does not exist."}}
        if path == "/tokenize":
            ids = list(self.scorer.tokenizer(body["prompt"], add_special_tokens=body.get("add_special_tokens", True))
                       ["input_ids"])
            return 200, {"tokens": ids[:-1] if self.wrong_tokens else ids, "count": len(ids)}
        if path == "/v1/completions":
            return 200, self._completions(body)
        if path == "/v1/chat/completions":
            text = "\n".join(m["content"] for m in body["messages"])
            out = self.scorer.generate([text], body.get("max_tokens", 16), body.get("stop"))[0]
            return 200, {"choices": [{"index": 0, "message": {"role": "assistant", "content": out}}]}
        return 404, {"error": {"message": f"no route {path}"}}

    def _completions(self, body: dict) -> dict:
        prompts = body["prompt"]
        if isinstance(prompts, str) or (prompts and isinstance(prompts[0], int)):
            prompts = [prompts]
        choices = []
        for i, p in enumerate(prompts):
            ids = list(self.scorer.tokenizer(p)["input_ids"]) if isinstance(p, str) else list(p)
            if body.get("echo"):
                lps = [None] + [float(v) for v in self.scorer.token_logprobs([(tuple(ids[:1]), tuple(ids[1:]))])[0]]
                choices.append({"index": i, "text": "", "logprobs": {"token_logprobs": lps}})
            else:
                text = self._generate_ids(ids, body.get("max_tokens", 16), body.get("stop"))
                choices.append({"index": i, "text": text})
        return {"choices": choices, "usage": {"prompt_tokens": sum(len(p) for p in prompts
                                                                   if not isinstance(p, str))}}

    def _generate_ids(self, ids: list[int], max_new: int, stop) -> str:
        import torch

        from lexprobe.scorers.causal import cut_at_stop, until_stop

        s = self.scorer
        with torch.inference_mode():
            out = s.model.generate(input_ids=torch.tensor([ids]), attention_mask=torch.ones(1, len(ids), dtype=torch.long),
                                   max_new_tokens=max_new, do_sample=False, num_beams=1, temperature=None, top_p=None,
                                   top_k=None, pad_token_id=s.pad_id, eos_token_id=s.stop_ids() or None)
        return cut_at_stop(s.tokenizer.decode(until_stop(out[0, len(ids):].tolist(), s.stop_ids()),
                                              skip_special_tokens=True), stop)

    def _handler(self):
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def _serve(self, method: str) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = json.loads(self.rfile.read(length) or b"{}") if length else {}
                status, payload = fake.answer(method, self.path, body, self.headers.get("Authorization"))
                data = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                if status == 429:
                    self.send_header("Retry-After", "0")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_GET(self):  # noqa: N802
                self._serve("GET")

            def do_POST(self):  # noqa: N802
                self._serve("POST")

            def log_message(self, *args):  # quiet
                pass

        return Handler
