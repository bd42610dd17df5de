"""User-facing errors.

A ``LexprobeError`` carries one line that names the problem and the fix; the CLI
prints it without a traceback (``--traceback`` shows one) and exits non-zero.
"""


class LexprobeError(Exception):
    """An error caused by the user's input or environment, not by a bug."""


class DataError(LexprobeError):
    """Missing, empty or malformed data file."""


class ModelError(LexprobeError):
    """Unknown or unloadable model, or a model lacking the head a task needs."""


class OutputError(LexprobeError):
    """An output location that cannot be written (checked before any work starts)."""


class OutputBusyError(LexprobeError):
    """Another process writes the same output (its lock, or its resume log's, is held)."""


class CapabilityError(ModelError):
    """A model that cannot do what a method needs (``asking.engine.require``): ``lexprobe run`` skips
    the part and says why, where a single ``eval`` stops."""

    def __init__(self, message: str, needs: str = "", offers: str = ""):
        super().__init__(message)
        self.needs, self.offers = needs, offers


class DataMissing(DataError):
    """A dataset that is not in the data directory and cannot be stood in for (the WSD framework offline):
    ``lexprobe run`` skips the part and says how to get the data, where a single ``eval`` stops. ``method``: the
    method the part would have run (a benchmark may choose it by model), for the run's list of skipped parts."""

    def __init__(self, message: str, method: str = ""):
        super().__init__(message)
        self.method = method
