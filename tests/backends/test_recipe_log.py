"""docs/backends.md's CPU serving recipe sends vLLM's log to a file (its lines, up to 3,439 columns, interleaved
with lexprobe's output) and shows the end of it when the server dies before it answers. Read from the document,
without vLLM (``test_serving_recipe.py`` runs the block where vLLM is installed)."""

from __future__ import annotations

import re

from tests.conftest import REPO_ROOT


def test_the_cpu_recipe_sends_the_servers_log_to_a_file():
    text = (REPO_ROOT / "docs" / "backends.md").read_text(encoding="utf-8")
    block = re.search(r"<!-- recipe: cpu -->\s*```bash\n(.*?)```", text, re.S).group(1)
    server = block[block.index("-m vllm.entrypoints.openai.api_server"):block.index("SERVER=$!")]
    assert "> vllm.log 2>&1 &" in server
    assert "tail -n 20 vllm.log" in block and "kill -0 $SERVER" in block
