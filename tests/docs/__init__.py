"""Every command and code block of README.md and docs/*.md runs here, or is listed below with why it cannot.

Every run (CI's too) checks the lists against the documents and parses every ``lexprobe`` command line as written
(``test_doc_snippets.py``, a second). The commands themselves run with ``LEXPROBE_TEST_DOCS=quick`` (the installed
causal LMs stood in for by a tiny Llama: ``rules.QUICK_STAND_INS``) or ``=real`` (the installed models as written);
CI leaves that run out for its time (``rules.DOCS_RUN``).

How a snippet runs (``test_run_*.py``, slow: models on real corpora; each run file holds a few documents, so
the workers share them). Each document's snippets run in the document's order in one fresh folder (a snippet
reads what the ones above it wrote, as a reader's would): a command by ``bash -e -c`` with the document's variable
settings before it, a ``python`` block as a file; ``lexprobe`` and ``python -m lexprobe`` are this checkout, run in
a fork of one process that has imported torch and transformers once (``zygote.py``), no network, the session's
cache (WordNet's build and SmolLM2's de-quantised copy are made once), and a data directory that is empty, as on
a fresh machine, or, for the documents of ``READS_CORPORA``, holds the real corpora imported from the shared
folder with ``lexprobe data import`` (without that folder those documents skip, saying why). With
``LEXPROBE_TEST_DOC_LOG=FILE`` every command's output is appended to FILE. Before it
runs, a snippet gets what the reader would have to put in, by these declared rules and nothing else:

* ``STAND_INS``: a model of the Hugging Face Hub (or a placeholder such as ``MODEL``) becomes an installed model
  or a tiny one of ``tests/tiny_models.py``: the command's shape, options and code path run, not the Hub model;
* ``SMALL``: a sample size (``--limit N``, ``--fit-limit N``, ``limit=N``, ``--groups N``, ``--max-instances N``,
  ``--max-groups N``, ``--sample N``; ``--epochs N`` and ``--permutations N`` too)
  above the option's floor becomes the floor plus its rank among the document's values above it, so sizes stay
  in the same order and two commands on the same sample stay on the same sample (``compare`` still pairs them);
  an ``eval`` or ``export`` without one (every item) gets the rank above all of them (``--limit``; sense ranking
  ``--max-instances``, whose ``--limit`` keeps its queries' whole lemmas; WiC ``--fit-limit`` too);
* ``SHARED_PATHS``: a file of one's own that a command imports (``semcor3.0_naf.tar.xz``) becomes the shared
  folder's copy (the snippet skips without it);
* ``REWRITES``: a whole command replaced, each with its reason (so few that each can be read);
* a shown block with ``<!-- file: NAME -->`` on the line above it is a file the reader saves: it is written as
  NAME into the document's folder before its commands run (stand-ins applied).

A snippet passes when it exits 0 (or with the exit code ``EXIT_CODES`` documents, or ``QUICK_EXIT_CODES`` says a
tiny stand-in gives, with why). One that cannot run here is in
``rules.NOT_RUN`` with its reason (a GPU, the Hub, a download, LDC data, a server, people, or minutes of CPU) and
skips with it, so ``pytest -rs`` lists them; a block named by the HTML comment above it can be listed whole
(``NOT_RUN_BLOCKS``).

Extending: a new command in a document is picked up on its own. Run
``python -m pytest -q tests/docs -m "not slow"`` (seconds; ``test_doc_snippets.py``): a command that needs something this machine lacks
fails ``test_every_snippet_runs_or_is_listed`` naming the line to add to ``NOT_RUN`` (with its reason) or the
stand-in to add; the slow ``test_snippet`` then runs it. An entry whose command left the documents fails
``test_the_lists_name_only_what_the_documents_hold``.
"""
