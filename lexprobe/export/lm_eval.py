"""``lexprobe export lm-eval [BENCHMARK ...] --out DIR``: lm-evaluation-harness tasks that give lexprobe's numbers.

``lm_eval --model hf --model_args pretrained=M --include_path DIR --tasks lexprobe_wdlmpro_w2d,...`` runs
them (lm-eval 0.4.13). The folder holds a YAML per task and per group, the tasks' docs as parquet files
(``docs/``: the prompts already built by the benchmark's own code, so lm-eval only scores them), the Python
file the YAMLs name (``lexprobe_tasks.py``, a copy of ``lm_eval_tasks.py``) and a README with what lm-eval
changes against lexprobe. A task has one of three forms (``declaration.LM_EVAL_FORMS``):

- ``contexts``: one continuation after each of several contexts (lm-eval's multiple-input form, as
  winogrande's: ``doc_to_text`` is the gold index, ``doc_to_choice`` the contexts);
- ``continuations``: several continuations after one context (lm-eval's usual multiple choice);
- ``alignment``: k contexts x k continuations (``lexprobe_tasks.AlignmentTask``), aligned by the task's
  own ``process_results``.

Each task's subtasks (per part of speech) are averaged in a group weighted by size, which is lexprobe's
mean over all units (its ``all`` slice).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, BinaryIO, Callable

import yaml

from lexprobe.core.exports import LM_EVAL_FORMS, BenchmarkExport, LMEvalTask, Selection
from lexprobe.outputs import write_atomic

TASKS_MODULE = "lexprobe_tasks"
METRICS = {"contexts": ("acc", "rank_score"), "continuations": ("acc", "rank_score"), "alignment": ("acc", "simple_acc"),
           "senses": ("acc",)}


class Function(str):
    """A YAML ``!function module.name`` value (lm-eval resolves it next to the YAML file)."""


class _Dumper(yaml.SafeDumper):
    pass


_Dumper.add_representer(Function, lambda dumper, value: dumper.represent_scalar("!function", str(value)))


def task_config(task: LMEvalTask) -> dict[str, Any]:
    """A task's YAML: its docs, form, prompts' fields and metrics."""
    if task.form not in LM_EVAL_FORMS:
        raise ValueError(f"unknown lm-eval task form {task.form!r}; one of {LM_EVAL_FORMS}")
    fields = {"contexts": {"doc_to_text": "gold", "doc_to_choice": "contexts", "doc_to_target": "continuation"},
              "continuations": {"doc_to_text": "context", "doc_to_choice": "continuations", "doc_to_target": "gold"},
              "alignment": {"doc_to_choice": "contexts", "doc_to_target": "id"},
              "senses": {"doc_to_text": "context", "doc_to_choice": "continuations", "doc_to_target": "gold"}}[task.form]
    results = {"alignment": "alignment_results", "senses": "sense_results"}.get(task.form, "rank_results")
    config: dict[str, Any] = {"task": task.name}
    if task.form == "alignment":
        config["class"] = Function(f"{TASKS_MODULE}.AlignmentTask")
    config.update({
        "task_alias": task.description,
        "custom_dataset": Function(f"{TASKS_MODULE}.docs"),
        "dataset_kwargs": {"docs": task.name},
        "output_type": "multiple_choice",
        "test_split": "test",
        **fields,
        "target_delimiter": " ",
        "process_results": Function(f"{TASKS_MODULE}.{results}"),
        "metric_list": [{"metric": m, "aggregation": "mean", "higher_is_better": True} for m in METRICS[task.form]],
        "metadata": {"version": 1.0},
    })
    return config


def group_config(name: str, tasks: list[LMEvalTask]) -> dict[str, Any]:
    """A group averaging its tasks' metrics over all their docs (``weight_by_size``: lexprobe's ``all`` slice)."""
    return {"group": name, "task": [t.name for t in tasks],
            "aggregate_metric_list": [{"metric": m, "aggregation": "mean", "weight_by_size": True}
                                      for m in METRICS[tasks[0].form]],
            "metadata": {"version": 1.0}}


def _dump(path: Path, config: dict[str, Any]) -> None:
    write_atomic(path, yaml.dump(config, Dumper=_Dumper, sort_keys=False, allow_unicode=True))


def write_tasks(folder: Path, chosen: list[tuple[BenchmarkExport, Selection]], command: str) -> list[LMEvalTask]:
    """Every chosen benchmark's tasks, groups, docs and the tasks module in ``folder``; the tasks written. Every
    file's name is checked before the first is written (``outputs.files_inside``): a task's name holds a name from
    the data (a WSD set, a CoDA21 file), and two tasks of one name (``ok`` and ``OK``) would be one file."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    from lexprobe.outputs import files_inside, require_name

    planned = [(export, selection, export.lm_eval(selection)) for export, selection in chosen]
    groups = [{t.group: [m for m in tasks if m.group == t.group] for t in tasks} for _, _, tasks in planned]
    tasks = [t for _, _, chosen_tasks in planned for t in chosen_tasks]
    for task in tasks:  # a task's and a group's name is one name: its file's
        require_name(task.name, "an lm-eval task")
        require_name(task.group, "an lm-eval group")
    names = ([f"{TASKS_MODULE}.py", "README.md"] + [f"{t.name}.yaml" for t in tasks]
             + [f"{g}.yaml" for mine in groups for g in mine] + [f"docs/{t.name}.parquet" for t in tasks])
    files_inside(folder, names, "an lm-eval task file")
    def parquet(table: pa.Table) -> Callable[[BinaryIO], None]:
        return lambda f: pq.write_table(table, f)

    for task in tasks:
        write_atomic(folder / "docs" / f"{task.name}.parquet", parquet(pa.Table.from_pylist(task.docs)))
        _dump(folder / f"{task.name}.yaml", task_config(task))
    for mine in groups:
        for name, members in mine.items():
            _dump(folder / f"{name}.yaml", group_config(name, members))
    write_atomic(folder / f"{TASKS_MODULE}.py", Path(__file__).with_name("lm_eval_tasks.py").read_bytes())
    notes = [(export, selection, mine) for (export, selection, _), mine in zip(planned, groups)]
    write_atomic(folder / "README.md", _readme(notes, command))
    return tasks


def _readme(notes: list, command: str) -> str:
    """The folder's README; every text from the data (the command, task names, sources, a canary) goes in through
    ``md_text`` or ``md_code`` (D18); the task names in the shell example are checked names (``write_tasks``)."""
    from lexprobe import __version__
    from lexprobe.tables import md_code, md_text

    lines = ["# lexprobe's benchmarks as lm-evaluation-harness tasks\n",
             f"Written by lexprobe {__version__}: {md_code(command)}. Run them with lm-eval 0.4.13:\n",
             "```bash\nlm_eval --model hf --model_args pretrained=MODEL --include_path THIS_FOLDER \\\n"
             f"    --tasks {','.join(g for *_, groups in notes for g in groups)}\n```\n",
             "Each group averages its tasks (one per part of speech) over all their docs, as lexprobe's `all` "
             "figure. `--limit N` takes each task's first N docs.\n"]
    for export, selection, groups in notes:
        lines.append(f"## {export.pretty_name}\n")
        lines += [f"- {md_code(g)}: " + ", ".join(f"{md_code(t.name)} ({len(t.docs):,} docs)" for t in members)
                  for g, members in groups.items()]
        lines.append("")
        lines.append(export.lm_eval_notes + "\n")
        lines.append("Sources and licences: " + "; ".join(f"{md_text(s.name)}: {md_text(s.licence)}"
                                                          for s in selection.sources) + "\n")
        if any(not s.redistributable for s in selection.sources):
            lines.append("**Do not redistribute** the docs of this benchmark (`docs/`): its source files carry no "
                         "licence that allows it.\n")
        if selection.canary:
            lines.append(f"Canary string of the source files: {md_code(selection.canary)}\n")
    return "\n".join(lines)


def export_lm_eval(chosen: list[tuple[BenchmarkExport, Any]], out: Path, command: str,
                   skip_missing: bool = False, say=print) -> list[LMEvalTask]:
    """Select each benchmark's items (``(export, options)``) and write their tasks to ``out`` (new or empty).
    ``skip_missing`` (no benchmark named): a benchmark whose data is not there is left out, said in one line."""
    from lexprobe.errors import DataError, LexprobeError
    from lexprobe.outputs import check_new_folder, whole_folder

    check_new_folder(out)
    selections = []
    for export, options in chosen:
        try:
            selections.append((export, export.select(options)))
        except DataError as err:
            if not skip_missing:
                raise
            say(f"lexprobe: {export.benchmark} left out: {err}")
    if not selections:
        raise LexprobeError("no benchmark's data is there to export; see the lines above")
    with whole_folder(out) as folder:
        return write_tasks(folder, selections, command)
