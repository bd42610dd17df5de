"""Model names and kinds the CLI parser needs, without importing torch (``lexprobe --help`` stays fast)."""

KINDS = ("masked", "causal", "embedding", "static", "random")
DEFAULT_MODEL = "all-MiniLM-L6-v2"
DTYPES = ("auto", "float32", "bfloat16", "float16")
ATTN_IMPLEMENTATIONS = ("sdpa", "flash_attention_2", "eager")
