"""Same requests, one run: lexprobe in process (packed) vs the vLLM server vs vLLM in process.

The requests are the ones the benchmarks send: WDLMPro (sister families: many continuations share a
context) and CoDA21 (long contexts, one per definition row), recorded from a real in-process run of
SmolLM2-135M-Instruct (float32, de-quantised from the PyPI GGUF: ``scripts/vllm_model.py``). Each path
scores every request once; reported: requests/s, prompt tokens/s (the tokens a server must compute: context
+ continuation per request) and, for the server, the client's own CPU time against the wall time (its
overhead). vLLM in process runs in the vLLM venv (``scripts/setup_vllm.sh``) as a subprocess of this script.

    python scripts/bench_backends.py [--groups 10] [--coda-groups 5] [--concurrency 8] [--port 8811]

The server must be up (``python -m vllm.entrypoints.openai.api_server --model DIR --dtype float32
--enforce-eager --port 8811``, docs/backends.md); ``--no-server`` / ``--no-vllm`` skip a path.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "scripts"))


def recorded_requests(model: str, bench: str, groups: int, coda_groups: int, tmp: Path) -> list[tuple]:
    """The (context ids, continuation ids) requests an in-process run of ``bench`` sends."""
    from lexprobe.cli import main
    from lexprobe.scorers.causal import CausalLMScorer

    seen: list[tuple] = []
    original = CausalLMScorer.token_logprobs

    def recording(self, requests, progress=False):
        seen.extend((tuple(c), tuple(x)) for c, x in requests)
        return original(self, requests, progress)

    CausalLMScorer.token_logprobs = recording  # type: ignore[method-assign]
    try:
        if bench == "wdlmpro":
            from lexprobe.benchmarks.wdlmpro.dataset import build_groups, write_jsonl
            from lexprobe.data.wordnet import load_wordnet

            wn = load_wordnet()
            # sister families of 5-12 members: shared contexts, and a CPU server gets through them in minutes
            chosen = [g for pos in ("n", "v") for g in
                      [g for g in build_groups(pos, wn=wn, targets=list(itertools.islice(wn.all_synsets(pos), 3000, 3600)))
                       if 5 <= len(g.candidates) <= 12][:groups]]
            args = ["wdlmpro", "eval", "--data", str(write_jsonl(chosen, tmp / "g.jsonl"))]
        else:

            coda = Path(os.environ.get("LEXPROBE_TEST_SHARED_DATA", "/work/shared/data")) / "coda21" / "CoDA-clean-hard.json"
            args = ["coda", "eval", "--data", str(coda), "--limit", str(coda_groups)]
        assert main(args + ["--model", model, "--kind", "causal", "--device", "cpu", "--out", str(tmp / f"{bench}.json")]) == 0
    finally:
        CausalLMScorer.token_logprobs = original  # type: ignore[method-assign]
    return list(dict.fromkeys(seen))


def timed(fn, *args) -> tuple[float, float, object]:
    wall, cpu = time.perf_counter(), time.process_time()
    out = fn(*args)
    return time.perf_counter() - wall, time.process_time() - cpu, out


def vllm_in_process(folder: str, requests: list[tuple], venv: Path) -> dict | None:
    python = venv / "bin" / "python"
    if not python.is_file():
        return None
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        json.dump([list(c + x) for c, x in requests], f)
    code = f"""
import json, time
from vllm import LLM, SamplingParams, TokensPrompt
prompts = json.load(open({f.name!r}))
llm = LLM(model={folder!r}, dtype="float32", enforce_eager=True, max_model_len=2048)
params = SamplingParams(max_tokens=1, prompt_logprobs=0, temperature=0.0)
llm.generate([TokensPrompt(prompt_token_ids=p) for p in prompts[:8]], params, use_tqdm=False)  # warm-up
t = time.perf_counter()
llm.generate([TokensPrompt(prompt_token_ids=p) for p in prompts], params, use_tqdm=False)
print("SECONDS", time.perf_counter() - t)
"""
    env = {**os.environ, "VLLM_CPU_KVCACHE_SPACE": "2", "PYTHONPATH": ""}
    out = subprocess.run([str(python), "-c", code], capture_output=True, text=True, env=env, timeout=1800)
    line = [x for x in out.stdout.splitlines() if x.startswith("SECONDS")]
    if not line:
        print(out.stderr[-2000:], file=sys.stderr)
        return None
    return {"wall": float(line[-1].split()[1])}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--groups", type=int, default=10, help="WDLMPro groups per POS")
    parser.add_argument("--coda-groups", type=int, default=5, help="CoDA21 groups per POS")
    parser.add_argument("--port", type=int, default=8811)
    parser.add_argument("--concurrency", type=int, default=8)
    parser.add_argument("--batch-size", type=int, default=8, help="prompts per HTTP request")
    parser.add_argument("--no-server", action="store_true")
    parser.add_argument("--no-vllm", action="store_true")
    parser.add_argument("--venv", default=os.environ.get("LEXPROBE_VLLM_VENV", str(Path.home() / ".cache" / "lexprobe-vllm" / "venv")))
    parser.add_argument("--out", default=None, help="also write the numbers as JSON")
    args = parser.parse_args()

    from lexprobe.models import load_scorer
    from vllm_model import served_folder

    folder = str(served_folder("smollm2-135m-instruct", Path.home() / ".cache" / "lexprobe-vllm" / "smollm2-135m-instruct"))
    local = load_scorer(folder, kind="causal", device="cpu")
    remote = None if args.no_server else load_scorer(f"http://127.0.0.1:{args.port}/v1", batch_size=args.batch_size,
                                                     concurrency=args.concurrency)
    rows = {}
    with tempfile.TemporaryDirectory() as tmp:
        for bench in ("wdlmpro", "coda"):
            requests = recorded_requests(folder, bench, args.groups, args.coda_groups, Path(tmp))
            contexts = len({c for c, _ in requests})
            tokens = sum(len(c) + len(x) for c, x in requests)
            row = {"requests": len(requests), "contexts": contexts, "prompt_tokens": tokens}
            wall, cpu, _ = timed(local.token_logprobs, requests)
            row["lexprobe_in_process"] = {"wall": wall, "requests_per_s": len(requests) / wall, "tokens_per_s": tokens / wall}
            if remote is not None:
                remote.token_logprobs(requests[:8])  # warm-up
                wall, cpu, _ = timed(remote.token_logprobs, requests)
                row["vllm_server"] = {"wall": wall, "requests_per_s": len(requests) / wall, "tokens_per_s": tokens / wall,
                                      "client_cpu_s": cpu, "client_cpu_share": cpu / wall}
            if not args.no_vllm:
                got = vllm_in_process(folder, requests, Path(args.venv))
                if got:
                    row["vllm_in_process"] = {**got, "requests_per_s": len(requests) / got["wall"],
                                              "tokens_per_s": tokens / got["wall"]}
            rows[bench] = row
            print(json.dumps({bench: row}, indent=1))
    if args.out:
        Path(args.out).write_text(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()
