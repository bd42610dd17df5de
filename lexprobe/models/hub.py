"""A Hugging Face Hub name on a machine that cannot reach the Hub: one line at once, not a minute of retries.

``huggingface_hub`` retries with back-off, so ``--model gpt2`` without a network once printed nothing for
45-63 s. ``check_hub_name`` asks the Hub once, with a short timeout, before anything loads: any HTTP answer
goes on; unreachable with the name cached, one notice and this process goes offline; unreachable and not
cached, one ``ModelError``. With ``HF_HUB_OFFLINE=1`` nothing is asked, and a name that is not cached is one
``ModelError`` at once (it cost 11-30 s of data loading first, then said "couldn't connect to huggingface.co").
Both errors name the close matches among the models at hand and ``lexprobe models`` (``models.catalog``).
"""

from __future__ import annotations

import functools
import os
import sys
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path

from lexprobe.backends import backend_for
from lexprobe.errors import ModelError
from lexprobe.model_names import DEFAULT_ALIASES, PACKAGED, STATIC_SUFFIXES

#: seconds the one probe may take (``HF_HUB_ETAG_TIMEOUT`` lowers it, never raises it)
PROBE_TIMEOUT = 5.0


def looks_like_hub_name(reference: str) -> bool:
    """``gpt2``, ``org/name``: not a path here, not a URL, not one of lexprobe's own short names."""
    text = str(reference)
    if not text or Path(text).expanduser().exists() or backend_for(text).name != "transformers":
        return False
    if text == "random" or text.lower() in DEFAULT_ALIASES or text.strip().lower() in PACKAGED:
        return False
    if text in ("glove-6b-50d",) or text.endswith(STATIC_SUFFIXES + (".gguf", ".safetensors")):
        return False
    return not text.startswith(("/", ".", "~")) and text.count("/") <= 1


def offline() -> bool:
    from huggingface_hub import constants

    return bool(constants.HF_HUB_OFFLINE)


def _cached(name: str) -> bool:
    from huggingface_hub import try_to_load_from_cache

    try:
        return isinstance(try_to_load_from_cache(name, "config.json"), str)
    except ValueError:  # not a valid repository id: transformers says so
        return False


def _unreachable(endpoint: str, name: str) -> str | None:
    """Why the Hub cannot be asked about ``name`` (None: it answered, whatever the answer)."""
    from huggingface_hub import constants

    timeout = min(PROBE_TIMEOUT, float(constants.HF_HUB_ETAG_TIMEOUT or PROBE_TIMEOUT))
    url = f"{endpoint.rstrip('/')}/api/models/{urllib.parse.quote(name)}"
    try:
        with urllib.request.urlopen(urllib.request.Request(url, method="HEAD"), timeout=timeout):
            return None
    except urllib.error.HTTPError:
        return None  # an answer: 401/404 and the like are transformers' to word
    except (urllib.error.URLError, OSError, ValueError) as err:
        reason = getattr(err, "reason", None) or err
        return str(getattr(reason, "strerror", None) or reason)


@functools.lru_cache(maxsize=None)
def check_hub_name(reference: str) -> None:
    """Before a Hub name loads: one probe (see the module's docstring). Once per name and process."""
    if not looks_like_hub_name(reference):
        return
    if offline():
        if not _cached(reference):
            from lexprobe.models.catalog import not_at_hand

            raise not_at_hand(reference, "not here: no local path, short name or Hugging Face cache entry has that "
                                         "name (HF_HUB_OFFLINE=1: the Hub is not asked)")
        return
    from huggingface_hub import constants

    endpoint = constants.ENDPOINT
    why = _unreachable(endpoint, reference)
    if why is None:
        return
    if _cached(reference):
        constants.HF_HUB_OFFLINE = True  # read at call time by huggingface_hub and transformers
        os.environ["HF_HUB_OFFLINE"] = "1"
        print(f"lexprobe: the Hugging Face Hub ({endpoint}) is unreachable ({why}); using the cached copy of "
              f"{reference!r} (set HF_HUB_OFFLINE=1 to skip this check)", file=sys.stderr, flush=True)
        return
    from lexprobe.models.catalog import close_matches

    near = close_matches(reference)
    raise ModelError(f"cannot load model {reference!r}: the Hugging Face Hub ({endpoint}) is unreachable ({why}) and "
                     "the model is not in the local cache; without a network, set HF_HUB_OFFLINE=1 and pass a local "
                     f"folder with config.json and safetensors weights (--model ~/models/{reference.split('/')[-1]})"
                     + (f" or a model at hand: {' or '.join(near)}" if near else "") + " (`lexprobe models` lists them)")
