"""`lexprobe data fetch|import|verify|list` against a real local HTTP server.

The server (the standard library's http.server in a thread, with Range support
added) serves files laid out like the upstream URLs under a mirror root:
``<root>/<host>/<path>``, reached through ``LEXPROBE_DATA_MIRROR``. The files are
copies of the real ones from the shared data folder, so the registry's pinned
checksums are what is checked.
"""

from __future__ import annotations

import gzip
import io
import json
import re
import shutil
import socket
import tarfile
import threading
import time
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from lexprobe.cli import main
from lexprobe.data import download, registry, store
from lexprobe.data import semcor as semcor_data
from lexprobe.data.registry import DATASETS, mirror_url
from lexprobe.errors import DataError


def _mirror_path(root: Path, url: str) -> Path:
    parts = urlsplit(url)
    return root / parts.netloc / parts.path.lstrip("/")


class RangeHandler(SimpleHTTPRequestHandler):
    """Serves files, honours ``Range: bytes=N-`` (206), and can drop a connection mid-file."""

    drop_after: dict = {}  # url path -> bytes to send before closing (for the next N requests)
    drops_left: dict = {}
    ranges = True
    log: list = []

    def log_message(self, *args):  # quiet
        pass

    def do_GET(self):
        path = Path(self.translate_path(self.path))
        RangeHandler.log.append((self.path, self.headers.get("Range")))
        if not path.is_file():
            self.send_error(404)
            return
        data = path.read_bytes()
        start = 0
        m = re.fullmatch(r"bytes=(\d+)-", self.headers.get("Range") or "")
        if m and self.ranges:
            start = int(m.group(1))
            if start >= len(data):
                self.send_response(416)
                self.send_header("Content-Range", f"bytes */{len(data)}")
                self.end_headers()
                return
            self.send_response(206)
            self.send_header("Content-Range", f"bytes {start}-{len(data) - 1}/{len(data)}")
        else:
            self.send_response(200)
        body = data[start:]
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.drops_left.get(self.path, 0) > 0:
            RangeHandler.drops_left[self.path] -= 1
            self.wfile.write(body[: self.drop_after[self.path]])
            self.wfile.flush()
            self.close_connection = True
            self.connection.shutdown(socket.SHUT_RDWR)
            return
        self.wfile.write(body)


@pytest.fixture(scope="module")
def mirror_root(shared_data, tmp_path_factory) -> Path:
    """Upstream-shaped copies of the shared files (SemCor repacked as GitHub's repository archive)."""
    root = tmp_path_factory.mktemp("mirror")
    for name in ("coda21-clean-hard", "pdep-inventory", "ontonotes-nota"):
        f = DATASETS[name].files[0]
        src = {"coda21-clean-hard": "coda21/CoDA-clean-hard.json", "pdep-inventory": "pdep/prepdefs.sqlite",
               "ontonotes-nota": "pdep/ontonotes_nota_senses.txt"}[name]
        dest = _mirror_path(root, f.url)
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(shared_data / src, dest)
    # SemCor: the NAF members under wsd_corpora-<commit>/semcor3.0/, plus another corpus the reader must skip
    semcor = DATASETS["semcor"].files[0]
    dest = _mirror_path(root, semcor.url)
    dest.parent.mkdir(parents=True, exist_ok=True)
    prefix = f"wsd_corpora-{semcor_data.COMMIT}"
    with tarfile.open(shared_data / "semcor3.0" / "semcor3.0_naf.tar.xz") as src, \
            tarfile.open(dest, "w:gz", compresslevel=1) as out:
        for m in src:
            if m.isfile():
                data = src.extractfile(m).read()
                info = tarfile.TarInfo(f"{prefix}/{m.name}")
                info.size = len(data)
                out.addfile(info, io.BytesIO(data))
                if m.name.endswith("br-a01.naf"):
                    decoy = tarfile.TarInfo(f"{prefix}/semcor1.6/brown1/br-a01.naf")
                    decoy.size = len(data)
                    out.addfile(decoy, io.BytesIO(data))
    return root


@pytest.fixture()
def server(mirror_root, monkeypatch):
    RangeHandler.drop_after, RangeHandler.drops_left, RangeHandler.log = {}, {}, []
    RangeHandler.ranges = True
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), partial(RangeHandler, directory=str(mirror_root)))
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    url = f"http://127.0.0.1:{httpd.server_address[1]}"
    monkeypatch.setenv("LEXPROBE_DATA_MIRROR", url)
    download._unreachable.clear()
    yield url
    httpd.shutdown()
    httpd.server_close()


def _served(url: str) -> str:
    """The request path of ``url`` on the mirror server."""
    parts = urlsplit(url)
    return f"/{parts.netloc}{parts.path}"


def _leftovers(root: Path) -> list[str]:
    return sorted(str(p.relative_to(root)) for p in root.rglob("*") if p.name.endswith((".part", ".lock")))


def test_mirror_url_layout(monkeypatch):
    url = "https://raw.githubusercontent.com/lksenel/CoDA21/abc/Data/CoDA-clean-hard.json"
    assert mirror_url(url, "") == url
    assert mirror_url(url, "file:///srv/m/") == "file:///srv/m/raw.githubusercontent.com/lksenel/CoDA21/abc/Data/CoDA-clean-hard.json"
    with pytest.raises(DataError, match="must start with"):
        mirror_url(url, "ftp://x")
    for ds in DATASETS.values():  # pinned: commits or tags, never a branch
        for f in ds.files:
            if f.url and ds.method == "http":
                assert re.search(r"/([0-9a-f]{40}|v\d[\d.]*)(/|\.tar\.gz$)", f.url), f.url


def test_fetch_verifies_and_records(server, tmp_path, capsys):
    assert main(["data", "fetch", "coda21-clean-hard", "ontonotes-nota", "--no-progress"]) == 0
    root = registry.data_dir()
    target = root / "coda21" / "CoDA-clean-hard.json"
    assert download.sha256_of(target) == DATASETS["coda21-clean-hard"].files[0].sha256
    assert _leftovers(root) == []
    assert store.read_state("coda21-clean-hard")["files"] == {"coda21/CoDA-clean-hard.json": DATASETS["coda21-clean-hard"].files[0].sha256}
    capsys.readouterr()
    assert main(["data", "list", "--json"]) == 0
    listed = {d["name"]: d for d in json.loads(capsys.readouterr().out)["datasets"]}
    assert listed["coda21-clean-hard"]["present"] and listed["coda21-clean-hard"]["verified"]
    assert not listed["coda21-clean-easy"]["present"]
    assert listed["coda21-noisy-easy"]["checksum"] == "pinned on first fetch"
    assert listed["ontonotes"]["method"] == "import-only"
    # a second fetch of a verified file downloads nothing
    RangeHandler.log.clear()
    assert main(["data", "fetch", "coda21-clean-hard", "--no-progress"]) == 0
    assert RangeHandler.log == []


def test_checksum_mismatch_leaves_nothing(server, mirror_root, tmp_path, capsys):
    src = _mirror_path(mirror_root, DATASETS["pdep-inventory"].files[0].url)
    good = src.read_bytes()
    try:
        src.write_bytes(good[:-1] + bytes([good[-1] ^ 1]))
        assert main(["data", "fetch", "pdep-inventory", "--no-progress"]) == 2
    finally:
        src.write_bytes(good)
    err = capsys.readouterr().err.strip()
    assert "checksum mismatch for prepdefs.sqlite" in err and "\n" not in err
    root = registry.data_dir()
    assert not (root / "pdep" / "prepdefs.sqlite").exists()
    assert _leftovers(root) == [] and store.read_state("pdep-inventory") == {}


def test_interrupted_download_resumes_with_range(server, mirror_root):
    f = DATASETS["coda21-clean-hard"].files[0]
    path = _served(f.url)
    RangeHandler.drop_after[path] = 100_000
    RangeHandler.drops_left[path] = 1
    store.fetch("coda21-clean-hard", progress=False, say=lambda line: None)
    assert (path, None) in RangeHandler.log and (path, "bytes=100000-") in RangeHandler.log
    assert download.sha256_of(registry.data_dir() / f.relpath) == f.sha256


def test_interrupted_twice_then_rerun_resumes(server, mirror_root):
    f = DATASETS["coda21-clean-hard"].files[0]
    path = _served(f.url)
    RangeHandler.drop_after[path] = 50_000
    RangeHandler.drops_left[path] = download.ATTEMPTS
    with pytest.raises(DataError, match="interrupted.*rerun"):
        store.fetch("coda21-clean-hard", progress=False, say=lambda line: None)
    part = registry.data_dir() / (f.relpath + ".part")
    assert part.stat().st_size == 50_000 * download.ATTEMPTS  # each attempt resumed the last
    assert not (registry.data_dir() / f.relpath).exists()
    store.fetch("coda21-clean-hard", progress=False, say=lambda line: None)
    assert download.sha256_of(registry.data_dir() / f.relpath) == f.sha256 and not part.exists()


def test_server_without_range_restarts_cleanly(server, mirror_root):
    RangeHandler.ranges = False
    f = DATASETS["coda21-clean-hard"].files[0]
    part = registry.data_dir() / (f.relpath + ".part")
    part.parent.mkdir(parents=True)
    part.write_bytes(b"stale bytes of an older attempt")
    store.fetch("coda21-clean-hard", progress=False, say=lambda line: None)
    assert download.sha256_of(registry.data_dir() / f.relpath) == f.sha256


def test_file_mirror(mirror_root, monkeypatch):
    monkeypatch.setenv("LEXPROBE_DATA_MIRROR", mirror_root.as_uri())
    assert main(["data", "fetch", "ontonotes-nota", "--no-progress"]) == 0
    from lexprobe.data.ontonotes import load_nota_senses

    assert len(load_nota_senses()) > 100  # the default location now has the list


def test_no_network_is_one_line_per_dataset_and_tried_once(tmp_path, monkeypatch, capsys):
    download._unreachable.clear()
    monkeypatch.delenv("LEXPROBE_DATA_MIRROR", raising=False)  # the tests' proxy is a closed port
    assert main(["data", "fetch", "coda21", "--no-progress"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 4 and all(line.startswith("lexprobe: error: coda21-") for line in err)
    assert "cannot reach raw.githubusercontent.com" in err[0] and "LEXPROBE_DATA_MIRROR" in err[0]
    # after the first failure the host is not tried again (no repeated connect timeouts)
    assert list(download._unreachable) == ["raw.githubusercontent.com"]
    assert _leftovers(registry.data_dir()) == []


def test_silent_server_times_out(monkeypatch):
    download._unreachable.clear()
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(1)  # accepts connections into the backlog, never answers
    try:
        monkeypatch.setenv("LEXPROBE_DATA_MIRROR", f"http://127.0.0.1:{sock.getsockname()[1]}")
        monkeypatch.setenv("LEXPROBE_DATA_TIMEOUT", "0.5")
        started = time.time()
        with pytest.raises(DataError, match="no answer within 0.5 s") as err:
            store.fetch("ontonotes-nota", progress=False, say=lambda line: None)
        assert time.time() - started < 30  # a missing timeout would wait forever
    finally:
        sock.close()
    assert "\n" not in str(err.value)


def test_semcor_repository_archive_fetch_and_read(server):
    from lexprobe.data import semcor

    store.fetch("semcor", progress=False, say=lambda line: None)
    archive = semcor.default_archive()
    assert archive.name == f"wsd_corpora-{semcor_data.COMMIT}.tar.gz" and archive.is_file()
    names = [n for n, _ in semcor.iter_naf_members(archive)]
    assert len(names) == 352 and names[0] == "semcor3.0/brown1/br-a01.naf"  # the semcor1.6 decoy is skipped
    assert store.read_state("semcor")["pinned_on_first_fetch"] == [DATASETS["semcor"].files[0].relpath]
    assert store.verify("semcor") == ("ok", [])


def test_import_and_verify(shared_data, tmp_path, capsys):
    assert main(["data", "import", "coda21", str(shared_data / "coda21")]) == 0
    root = registry.data_dir()
    assert sorted(p.name for p in (root / "coda21").iterdir()) == [
        "CoDA-clean-easy.json", "CoDA-clean-hard.json", "CoDA-noisy-hard.json"]
    assert main(["data", "verify"]) == 0
    out = capsys.readouterr().out
    assert "coda21-clean-easy: ok" in out and "coda21-noisy-hard: ok" in out
    # a damaged copy is named, exit 2
    target = root / "coda21" / "CoDA-clean-easy.json"
    target.write_bytes(target.read_bytes()[:-2] + b" }")
    assert main(["data", "verify", "coda21"]) == 2
    err = capsys.readouterr().err
    assert "CoDA-clean-easy.json" in err and "differs from the pinned" in err
    # a file that is not the pinned release is refused
    wrong = tmp_path / "CoDA-clean-easy.json"
    shutil.copyfile(shared_data / "coda21" / "CoDA-clean-hard.json", wrong)
    assert main(["data", "import", "coda21-clean-easy", str(wrong)]) == 2
    assert "is not the pinned" in capsys.readouterr().err
    # not JSON at all
    (tmp_path / "junk.json").write_text("{nope")
    assert main(["data", "import", "coda21-noisy-easy", str(tmp_path / "junk.json")]) == 2
    assert "not a CoDA21 JSON file" in capsys.readouterr().err


def test_import_semcor_archive_and_tree(shared_data, tmp_path, capsys):
    from lexprobe.data import semcor

    archive = shared_data / "semcor3.0" / "semcor3.0_naf.tar.xz"
    assert main(["data", "import", "semcor", str(archive)]) == 0
    assert semcor.default_archive() == registry.data_dir() / "semcor" / "semcor3.0_naf.tar.xz"
    # a different set of NAF documents is refused by content
    small = tmp_path / "other.tar.gz"
    with tarfile.open(archive) as src, tarfile.open(small, "w:gz") as out:
        for m in src:
            if m.isfile() and "brown1/br-a0" in m.name:
                out.addfile(m, src.extractfile(m))
    assert main(["data", "import", "semcor", str(small)]) == 2
    assert "is not SemCor 3.0 in NAF" in capsys.readouterr().err
    # an unpacked tree reads like the archive
    tree = tmp_path / "tree"
    with tarfile.open(small) as t:
        # the "data" filter where this Python has it (3.11.4+, 3.10.12+; Debian 12's 3.11.2 has not)
        t.extractall(tree, **({"filter": "data"} if hasattr(tarfile, "data_filter") else {}))
    from_tree = list(semcor.iter_semcor_sentences(tree / "semcor3.0"))
    from_archive = list(semcor.iter_semcor_sentences(small))
    with tarfile.open(small) as t:
        n_docs = len(t.getnames())
    assert from_tree == from_archive and len({s.doc_id for s in from_tree}) == n_docs > 1


def test_import_streusle_checks_pins_of_gzipped_copies(shared_data, tmp_path):
    store.import_dataset("streusle", [shared_data / "streusle-4.4"], say=lambda line: None)
    root = registry.data_dir() / "streusle-4.4"
    assert (root / "dev" / "streusle.ud_dev.json.gz").is_file()
    bad = tmp_path / "streusle-4.4"
    shutil.copytree(shared_data / "streusle-4.4", bad)
    (bad / "dev" / "streusle.ud_dev.json.gz").chmod(0o644)
    with gzip.open(shared_data / "streusle-4.4" / "test" / "streusle.ud_test.json.gz") as f:
        data = f.read()
    with gzip.open(bad / "dev" / "streusle.ud_dev.json.gz", "wb") as f:
        f.write(data)  # well-formed, but not the pinned dev file
    with pytest.raises(DataError, match="not the pinned STREUSLE.*streusle.ud_dev.json"):
        store.import_dataset("streusle", [bad], say=lambda line: None)
    assert (root / "dev" / "streusle.ud_dev.json.gz").is_file()  # the earlier import is untouched


def test_readers_say_the_fetch_command():
    from lexprobe.data.corpora import load_corpus
    from lexprobe.data.pdep import pdep_definitions
    from lexprobe.data.semcor import iter_semcor_sentences

    with pytest.raises(DataError, match=r"`lexprobe data fetch semcor`"):
        list(iter_semcor_sentences())
    with pytest.raises(DataError, match=r"`lexprobe data fetch streusle`"):
        load_corpus("streusle")
    with pytest.raises(DataError, match=r"`lexprobe data fetch pdep-corpus`.*--path"):
        load_corpus("pdep")
    with pytest.raises(DataError, match=r"`lexprobe data import ontonotes PATH`"):
        load_corpus("ontonotes")
    with pytest.raises(DataError, match=r"`lexprobe data fetch pdep-inventory`"):
        pdep_definitions()


def test_fetch_wordnet_from_a_mirror(server, mirror_root, monkeypatch):
    """`data fetch wordnet` from a mirror (NLTK's downloader refuses local hosts, so from a mirror the
    zip it would fetch is downloaded and unpacked directly): a wordnet.zip made from the installed
    WordNet, then WordNet loads from the data directory."""
    import zipfile

    from lexprobe.data import wordnet

    src = wordnet.wordnet_source_dir()
    if src is None:
        pytest.skip("no WordNet dict folder to build the package from")
    pkg = mirror_root / "raw.githubusercontent.com" / "nltk" / "nltk_data" / "gh-pages"
    (pkg / "packages" / "corpora").mkdir(parents=True, exist_ok=True)
    zpath = pkg / "packages" / "corpora" / "wordnet.zip"
    with zipfile.ZipFile(zpath, "w", zipfile.ZIP_STORED) as z:
        for f in sorted(src.iterdir()):
            if f.is_file():
                z.write(f, f"wordnet/{f.name}")
        if not (src / "lexnames").exists():
            z.writestr("wordnet/lexnames", wordnet.lexnames_text())
    monkeypatch.setattr(wordnet, "DEBIAN_WORDNET_DIRS", ())
    monkeypatch.delenv("LEXPROBE_WORDNET", raising=False)
    monkeypatch.setenv("LEXPROBE_NLTK_DATA", str(registry.data_dir() / "unused-nltk-copy"))
    assert store.locate("wordnet") is None
    store.fetch("wordnet", progress=False, say=lambda line: None)
    assert store.locate("wordnet") == registry.data_dir() / "nltk_data" / "corpora" / "wordnet"
    assert store.read_state("wordnet")["files"]["nltk_data/corpora/wordnet.zip"] == download.sha256_of(zpath)
    import nltk

    monkeypatch.setattr(nltk.data, "path", list(nltk.data.path))
    wordnet.load_wordnet.cache_clear()
    try:
        assert wordnet.load_wordnet().synset("dog.n.01").definition().startswith("a member of the genus Canis")
    finally:
        wordnet.load_wordnet.cache_clear()
    assert store.verify("wordnet") == ("ok", [])


def test_import_semcor_from_the_folder_that_holds_its_archive(tmp_path, capsys):
    """`data import semcor DIR` where DIR holds the archive and its licence files (as SemCor is
    shipped) reads that archive: it used to stop at "no .naf files under DIR"."""
    from tests.data.test_semcor import _archive, _naf

    folder = tmp_path / "semcor3.0"
    folder.mkdir()
    (folder / "README_wsd_corpora.md").write_text("readme")
    _archive(folder / "semcor3.0_naf.tar.xz", {"semcor3.0/brown1/br-x0.naf": _naf([["The", "bank"]], {})})
    assert main(["data", "import", "semcor", str(folder)]) == 2
    err = capsys.readouterr().err
    assert "is not SemCor 3.0 in NAF" in err and "no .naf files" not in err  # the archive was read (a toy one)
