"""Issue #33 D17: ``data fetch wordnet`` from a mirror (``LEXPROBE_DATA_MIRROR``, here a ``file://`` folder).

Before: the zip was pinned on its first fetch whatever it held, each member was read whole into memory (an 8 MB
zip took 4.3 GB), 2 GiB of NULs were pinned as "verified", a member ``wordnet/..`` raised ``IsADirectoryError``.
Now every member name is checked (a plain file directly under ``wordnet/``), declared and streamed sizes are capped
(``wordnet.WORDNET_MEMBER_CAP``/``WORDNET_TOTAL_CAP``; a small cap in the tests stands for the 2 GiB member), the
required files must begin as WordNet's do, and only then is the zip put in place and pinned. Each test fails on
the code before the change.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from lexprobe.cli import main
from lexprobe.data import registry, store, wordnet

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture()
def wordnet_dict():
    from lexprobe.data import wordnet

    src = wordnet.wordnet_source_dir()
    if src is None:
        pytest.skip("no WordNet dict folder to build the mirror's wordnet.zip from")
    return src


@pytest.fixture()
def mirror_zip(tmp_path, monkeypatch):
    """Where the mirror serves NLTK's wordnet.zip; the installed WordNets hidden, so fetch has work to do."""
    from lexprobe.data import wordnet

    root = tmp_path / "mirror"
    zpath = root / "raw.githubusercontent.com/nltk/nltk_data/gh-pages/packages/corpora/wordnet.zip"
    zpath.parent.mkdir(parents=True)
    monkeypatch.setenv("LEXPROBE_DATA_MIRROR", root.as_uri())
    monkeypatch.setattr(wordnet, "DEBIAN_WORDNET_DIRS", ())
    monkeypatch.delenv("LEXPROBE_WORDNET", raising=False)
    return zpath


def write_zip(zpath: Path, src: Path, replace: dict | None = None, extra: dict | None = None) -> None:
    """A wordnet.zip of the dict folder ``src`` (``replace``: member -> bytes or a size of NULs streamed in;
    ``extra``: more members by name)."""
    replace = replace or {}
    with zipfile.ZipFile(zpath, "w", zipfile.ZIP_DEFLATED) as z:
        for f in sorted(p for p in src.iterdir() if p.is_file()):
            name = f"wordnet/{f.name}"
            content = replace.get(f.name, f.read_bytes())
            if isinstance(content, int):  # a big member streamed in: never in this process's memory
                info = zipfile.ZipInfo(name)
                info.compress_type = zipfile.ZIP_DEFLATED  # (a ZipInfo is stored uncompressed unless told)
                with z.open(info, "w", force_zip64=True) as member:
                    for _ in range(content >> 20):
                        member.write(bytes(1 << 20))
            else:
                z.writestr(name, content)
        for name, content in (extra or {}).items():
            z.writestr(name, content)


def nothing_installed() -> bool:
    root = registry.data_dir()
    corpora = root / "nltk_data" / "corpora"
    leftovers = [p for p in corpora.rglob("*")] if corpora.exists() else []
    return leftovers == [] and store.read_state("wordnet") == {}


def fetch(capsys) -> tuple[int, str]:
    capsys.readouterr()
    code = main(["data", "fetch", "--force", "--no-progress", "wordnet"])
    return code, capsys.readouterr().err.strip()


def test_D17_a_member_over_the_cap_is_refused_and_nothing_pinned(wordnet_dict, mirror_zip, capsys, monkeypatch):
    """The issue's repro with a smaller cap: ``wordnet/data.noun`` of 20 MiB of NULs under a 16 MiB cap (the real
    data.noun has 15,300,280 bytes)."""
    monkeypatch.setattr(wordnet, "WORDNET_MEMBER_CAP", 16 << 20)
    write_zip(mirror_zip, wordnet_dict, replace={"data.noun": 20 << 20})
    code, err = fetch(capsys)
    assert code == 2 and err.count("\n") == 0, err
    assert "wordnet/data.noun would unpack to 20,971,520 bytes" in err and "16,777,216" in err, err
    assert "nothing was unpacked or pinned" in err
    assert nothing_installed()


def test_D17_a_member_that_unpacks_to_more_than_declared_is_stopped_while_streaming(wordnet_dict, mirror_zip,
                                                                                  capsys, monkeypatch):
    """The second guard: sizes are counted as the member streams to disk, so a member whose header understates it
    stops at the cap too (here the header check is let through, as a lying header would)."""
    checked = wordnet._wordnet_members

    def lying_header(archive):
        cap = wordnet.WORDNET_MEMBER_CAP
        monkeypatch.setattr(wordnet, "WORDNET_MEMBER_CAP", 1 << 40)
        try:
            return checked(archive)
        finally:
            monkeypatch.setattr(wordnet, "WORDNET_MEMBER_CAP", cap)

    monkeypatch.setattr(wordnet, "_wordnet_members", lying_header)
    monkeypatch.setattr(wordnet, "WORDNET_MEMBER_CAP", 16 << 20)
    write_zip(mirror_zip, wordnet_dict, replace={"data.noun": 20 << 20})
    code, err = fetch(capsys)
    assert code == 2 and "member wordnet/data.noun unpacks to more than its caps allow" in err, err
    assert nothing_installed()


def test_D17_nuls_under_the_cap_are_not_wordnet_and_nothing_is_pinned(wordnet_dict, mirror_zip, capsys):
    write_zip(mirror_zip, wordnet_dict, replace={"data.noun": 2 << 20})
    code, err = fetch(capsys)
    assert code == 2 and err.count("\n") == 0, err
    assert "wordnet/data.noun is not a WordNet 3.0 file" in err and nothing_installed()


def test_D17_members_over_the_total_cap_are_refused(wordnet_dict, mirror_zip, capsys, monkeypatch):
    monkeypatch.setattr(wordnet, "WORDNET_TOTAL_CAP", 8 << 20)  # every member is under the member cap
    write_zip(mirror_zip, wordnet_dict)
    code, err = fetch(capsys)
    assert code == 2 and "members would unpack to" in err and nothing_installed(), err


@pytest.mark.filterwarnings("ignore:Duplicate name")  # the last case writes a member twice on purpose
@pytest.mark.parametrize("member", ["wordnet/..", "wordnet/../escape.txt", "../escape.txt", "/tmp/escape.txt",
                                    "wordnet/sub/data.noun", "other/readme", "wordnet/data.noun"])
def test_D17_a_member_outside_the_target_is_one_line(member, wordnet_dict, mirror_zip, tmp_path, capsys):
    """A name that is not a plain file directly under ``wordnet/`` (or appears twice: the last case) is refused
    before anything is written anywhere."""
    write_zip(mirror_zip, wordnet_dict, extra={member: b"data"})
    code, err = fetch(capsys)
    assert code == 2 and err.count("\n") == 0, err
    assert repr(member) in err and ("not a file directly under wordnet/" in err or "appears twice" in err), err
    assert nothing_installed()
    assert not (tmp_path / "escape.txt").exists() and not Path("/tmp/escape.txt").exists()


def test_D17_a_good_mirror_zip_is_unpacked_then_pinned(wordnet_dict, mirror_zip, capsys):
    write_zip(mirror_zip, wordnet_dict)
    code, err = fetch(capsys)
    assert code == 0, err
    state = store.read_state("wordnet")
    assert state["files"]["nltk_data/corpora/wordnet.zip"] == store.sha256_of(mirror_zip)
    unpacked = registry.data_dir() / "nltk_data" / "corpora" / "wordnet"
    assert (unpacked / "data.noun").read_bytes() == (wordnet_dict / "data.noun").read_bytes()
    assert store.verify("wordnet") == ("ok", [])


def test_D17_a_big_member_is_refused_with_little_memory(wordnet_dict, mirror_zip, tmp_path):
    """A 320 MiB ``data.noun`` (a zip of about 0.3 MB) at the real caps: refused from its declared size, and the process
    stays small (it read the member whole before: its RSS grew by the member's size)."""
    write_zip(mirror_zip, wordnet_dict, replace={"data.noun": 320 << 20})
    # the peak of this process's own memory (VmHWM: getrusage's ru_maxrss would include the parent's, kept over exec)
    script = ("import json, re; from lexprobe.cli import main; code = main(['data', 'fetch', '--force', "
              "'--no-progress', 'wordnet']); peak = re.search(r'VmHWM:\\s+(\\d+) kB', open('/proc/self/status').read()); "
              "print(json.dumps([code, int(peak.group(1))]))")
    env = {**os.environ, "PYTHONPATH": str(REPO), "LEXPROBE_WORDNET": "", "LEXPROBE_DATA": str(tmp_path / "data")}
    done = subprocess.run([sys.executable, "-c", "import lexprobe.data.wordnet as w; w.DEBIAN_WORDNET_DIRS = (); "
                           + script], capture_output=True, text=True, env=env, timeout=300, cwd=REPO)
    code, max_rss_kb = json.loads(done.stdout.strip().splitlines()[-1])
    assert code == 2 and "data.noun would unpack to 335,544,320 bytes" in done.stderr, done.stderr
    assert max_rss_kb < 250 * 1024, max_rss_kb  # well under the member's 320 MiB
