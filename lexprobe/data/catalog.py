"""The datasets lexprobe ships, registered (``data.registry``) when this module is imported: one import line each.

Each is declared once, in its own module, with its files, pins and ways (``Dataset``'s hooks); the data commands,
``store`` and ``importing`` import this list, so they know every dataset without naming any. A dataset that only
one benchmark reads is registered by that benchmark's package instead, which imports its module.
"""

from __future__ import annotations

# isort: off
import lexprobe.data.wordnet  # noqa: F401
import lexprobe.data.coda21  # noqa: F401
import lexprobe.data.semcor  # noqa: F401
import lexprobe.data.streusle  # noqa: F401
import lexprobe.data.pdep  # noqa: F401
import lexprobe.data.ontonotes  # noqa: F401
import lexprobe.data.wsd  # noqa: F401
import lexprobe.data.wsd_hard  # noqa: F401
# isort: on
