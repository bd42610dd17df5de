"""The options of ``--method choose`` (ask-to-choose prompting of causal LMs), as a config group.

``ChooseOptions`` is a field of the WDLMPro and CoDA21 configs; the CLI offers its fields as ``--chat``,
``--template``, ... (an error with another method). ``check`` resolves the ``--template`` once per run.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from lexprobe.core.cli_common import positive_int
from lexprobe.core.options import option
from lexprobe.errors import LexprobeError
from lexprobe.outputs import INPUT

if TYPE_CHECKING:
    from lexprobe.prompting.templates import Fields, Template

READING_CHOICES = {"both": ("likelihood", "generation"), "likelihood": ("likelihood",),
                   "generation": ("generation",)}


@dataclass(frozen=True)
class ChooseOptions:
    chat: bool = option(False, "wrap the question in the tokenizer's chat template (instruction-tuned models)")
    template: str = option("default", "prompt template: default, or a JSON file (fields: docs/llm.md)",
                           path=INPUT)
    max_candidates: int = option(10, "larger groups are cut to a seeded sample of this many options, the gold "
                                     "one kept", type=positive_int)
    permutations: int = option(1, "ask every item in this many seeded option orders and average",
                               type=positive_int)
    reading: str = option("both", "read answers by option-label likelihood, by parsed greedy generation, or both",
                          choices=tuple(READING_CHOICES))
    max_new_tokens: int | None = option(None, "generation length in tokens (default: enough for the answer format)",
                                        type=positive_int)
    debias: str = option("none", "cyclic: also ask the label likelihood with the options in all their cyclic orders "
                                 "and average each option's probability over the orders (position-bias debiasing)",
                         choices=("none", "cyclic"))
    #: units per batch; None: as many as ``choose.batch_prompts`` holds. ``lexprobe run`` asks one, so its
    #: progress moves after every unit; the default stays what recorded results used (left-padding can flip
    #: a near-tie of greedy generation).
    units_per_batch: int | None = option(None, cli=False, record=False)

    @property
    def readings(self) -> tuple[str, ...]:
        """The readings asked (``--reading``), in ask order."""
        return READING_CHOICES[self.reading]

    @property
    def cyclic(self) -> bool:
        """``--debias cyclic``: the likelihood reading is also asked in every cyclic order of the options."""
        return self.debias == "cyclic"

    def check(self, fields: Fields | None = None) -> Template:
        """What the declarations cannot say, before the model loads; returns the ``--template`` resolved with
        ``fields`` (None: every registered benchmark's), read once per run (``ChooseMethod.run``)."""
        from lexprobe.prompting.templates import load_template

        if self.max_candidates < 2:
            raise LexprobeError(f"--max-candidates must be at least 2, got {self.max_candidates}")
        if self.cyclic and "likelihood" not in self.readings:
            raise LexprobeError("--debias cyclic debiases the likelihood reading; drop --reading generation")
        return load_template(self.template, fields)
