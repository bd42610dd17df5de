"""Reports and comparisons of result files: ``lexprobe report`` and ``lexprobe compare``.

``results`` reads result files and turns their per-item records into units;
``tables`` builds the side-by-side tables (Markdown, LaTeX, HTML); ``figures`` reuses
each benchmark's plots; ``html`` writes the self-contained pages; ``compare`` pairs
two runs item by item.
"""
