"""The report's jinja2 templates are package data (#33 item 10): a wheel built from pyproject.toml carries
every file of lexprobe/report/templates, and lexprobe installed from that wheel (not the source tree, not
an editable install) renders a report page from them."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import lexprobe

ROOT = Path(lexprobe.__file__).resolve().parent.parent
TEMPLATES = ROOT / "lexprobe" / "report" / "templates"


def test_a_wheel_carries_the_templates_and_renders_from_them(tmp_path):
    source = tmp_path / "src"
    source.mkdir()
    shutil.copy(ROOT / "pyproject.toml", source)
    shutil.copytree(ROOT / "lexprobe", source / "lexprobe", ignore=shutil.ignore_patterns("__pycache__"))
    dist = tmp_path / "dist"
    build = ("import sys; from setuptools import build_meta; "
             "print(build_meta.build_wheel(sys.argv[1]))")
    done = subprocess.run([sys.executable, "-c", build, str(dist)], cwd=source, capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    wheel = dist / done.stdout.strip().splitlines()[-1]
    with zipfile.ZipFile(wheel) as z:
        names = set(z.namelist())
        shipped = {n for n in names if n.startswith("lexprobe/report/templates/")}
        assert shipped == {f"lexprobe/report/templates/{p.name}" for p in TEMPLATES.iterdir() if p.is_file()}
        installed = tmp_path / "site"
        z.extractall(installed)  # what `pip install` of the wheel puts in site-packages

    # a fresh interpreter that finds lexprobe only in the unpacked wheel (the source tree is not on its path)
    render = ("import lexprobe.api, sys; from lexprobe.report.html import failure_page, to_html; "
              "from lexprobe.tables import Table; "
              "print(lexprobe.__file__); "
              "page = failure_page('wdlmpro', [{'model': 'm', 'task': 'w2d', 'pos': 'n', 'item': '<b>x</b>', "
              "'gold': 'g', 'chosen': '', 'score': '1 of 2', 'ok': True}]); "
              "assert 'details.group' in page and 'failures only' in page, page[:300]; "
              "assert '&lt;b&gt;' in to_html(Table('x', 'T', ['Model'], [['<b>x</b>']]))")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"} | {"PYTHONPATH": str(installed),
                                                                        "PYTHONSAFEPATH": "1"}
    ran = subprocess.run([sys.executable, "-c", render], cwd=tmp_path, env=env, capture_output=True, text=True,
                         timeout=300)
    assert ran.returncode == 0, ran.stderr[-2000:]
    assert Path(ran.stdout.splitlines()[0]).resolve().is_relative_to(installed.resolve())
