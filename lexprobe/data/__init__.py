"""Readers for lexical resources (WordNet) and sense-annotated corpora."""
