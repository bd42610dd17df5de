"""CWE similarity ranking ("BERT Has Uncommon Sense", Gessler & Schneider 2021).

A query word in context ranks same-lemma instances of a sense-annotated database by
the cosine of contextual embeddings; precision of the top 50 measures how well the
model's embedding space separates senses, bucketed by lemma frequency and sense
proportion. ``finetune`` implements inoculation on STREUSLE supersenses.
"""
