"""A packaged GGUF model as a float32 safetensors folder vLLM can serve (``--model FOLDER``).

lexprobe already de-quantises a GGUF file into its cache (``lexprobe.models.gguf.as_pretrained_dir``);
this copies that folder and drops ``quantization_config`` from config.json (with it vLLM takes the
folder for a GGUF checkpoint). The served weights are then exactly the ones lexprobe's in-process
scorer loads, so the two paths can be compared to float rounding.

    python scripts/vllm_model.py [--model smollm2-135m-instruct] [--out DIR]   # prints the folder
"""

from __future__ import annotations

import argparse
import json
import shutil
from pathlib import Path


def served_folder(model: str = "smollm2-135m-instruct", out: str | Path | None = None) -> Path:
    """The folder (made once): ``out`` or ``<lexprobe cache>/vllm/<model>``."""
    from lexprobe.cache import cache_dir
    from lexprobe.models.gguf import as_pretrained_dir
    from lexprobe.model_names import resolve_model_path

    folder = Path(out) if out else cache_dir() / "vllm" / model
    if (folder / "config.json").is_file() and any(folder.glob("*.safetensors")):
        return folder
    source = Path(as_pretrained_dir(resolve_model_path(model)))
    tmp = folder.with_name(folder.name + ".partial")
    shutil.rmtree(tmp, ignore_errors=True)
    shutil.copytree(source, tmp)
    config = json.loads((tmp / "config.json").read_text())
    config.pop("quantization_config", None)
    (tmp / "config.json").write_text(json.dumps(config, indent=2))
    tmp.rename(folder)
    return folder


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default="smollm2-135m-instruct")
    parser.add_argument("--out", default=None)
    args = parser.parse_args()
    print(served_folder(args.model, args.out))


if __name__ == "__main__":
    main()
