"""Where lexprobe keeps its datasets: ``$LEXPROBE_DATA`` or ``~/.cache/lexprobe/data``.

A foundation module (no imports from lexprobe) because the output guard
(``outputs.check_not_inputs``) must know the folder to refuse writing into it, and
the guard sits below ``data/``, which keeps everything else about datasets.
"""

from __future__ import annotations

import os
from pathlib import Path


def data_dir() -> Path:
    """``$LEXPROBE_DATA`` or ``~/.cache/lexprobe/data`` (not created here)."""
    env = os.environ.get("LEXPROBE_DATA")
    return Path(env).expanduser() if env else Path.home() / ".cache" / "lexprobe" / "data"
