"""Model names and kinds the CLI parser needs, without importing torch (``lexprobe --help`` stays fast)."""

KINDS = ("masked", "causal", "embedding", "static", "random")
DEFAULT_MODEL = "all-MiniLM-L6-v2"
