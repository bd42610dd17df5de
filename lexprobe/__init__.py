"""lexprobe: benchmarks of how well language models understand word meaning.

Three benchmark families share one scoring engine:
WDLMPro (word <-> definition matching), CoDA21 (context <-> definition alignment)
and CWE similarity ranking (query-by-example word-sense retrieval).
"""

__version__ = "0.1.0"
