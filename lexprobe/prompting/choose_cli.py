"""The options of ``--method choose`` (ask-to-choose prompting of causal LMs), as a config group.

``ChooseOptions`` is a field of the WDLMPro and CoDA21 configs (``nested``); the CLI offers
its fields as ``--chat``, ``--template``, ... and they are an error with another method.
``to_config`` gives the ``ChooseConfig`` a choose run takes, its template resolved with the run's
benchmark's fields only.
"""

from __future__ import annotations

from dataclasses import dataclass

from lexprobe.benchmarks.base import option
from lexprobe.cli_common import positive_int
from lexprobe.outputs import INPUT

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
    #: units (a WDLMPro target, a CoDA21 group) per batch; None: as many as ``choose.batch_prompts`` holds (a
    #: few prompts on the CPU). ``lexprobe run`` asks one, so its progress bar moves after every unit on two busy cores (a
    #: batch of 8 CoDA21 prompts took 5 minutes there). Prompts generated together are left-padded, which
    #: can flip a near-tie of greedy generation, so the default stays what the recorded results used.
    units_per_batch: int | None = option(None, cli=False, record=False)

    def check(self) -> None:
        """``--template`` readable and well formed, before the model loads."""
        from lexprobe.prompting.templates import load_template

        load_template(self.template)

    def to_config(self, seed: int = 0, fields=None):
        """``fields``: the benchmark's ``template_fields`` (None: every registered benchmark's)."""
        from lexprobe.prompting.choose import ChooseConfig
        from lexprobe.prompting.templates import load_template

        return ChooseConfig(template=load_template(self.template, fields), chat=self.chat,
                            max_candidates=self.max_candidates, permutations=self.permutations, seed=seed,
                            readings=READING_CHOICES[self.reading], max_new_tokens=self.max_new_tokens,
                            debias=self.debias)
