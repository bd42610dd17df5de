"""A TLS failure names its fix, not "the server is down", and is not retried: a self-signed (or private-CA)
certificate names SSL_CERT_FILE (which then works), a certificate for another host says so, SSL_CERT_FILE that
does not hold the signer or cannot be read says so, an https:// URL to a plain-HTTP server names http://."""

from __future__ import annotations

import shutil

import pytest

from lexprobe.cli import main
from lexprobe.errors import ModelError
from lexprobe.models import load_scorer
from tests.backends.fake_openai import FakeOpenAI, self_signed

pytestmark = [pytest.mark.usefixtures("quick_retries"),
              pytest.mark.skipif(shutil.which("openssl") is None, reason="needs the openssl command")]


@pytest.fixture(autouse=True)
def _no_certificate_settings(monkeypatch):
    for name in ("SSL_CERT_FILE", "SSL_CERT_DIR", "HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy",
                 "https_proxy", "all_proxy"):
        monkeypatch.delenv(name, raising=False)


@pytest.fixture()
def certificate(tmp_path):
    return self_signed(tmp_path)


@pytest.fixture()
def tls_fake(llama, tiny_llama, certificate):
    with FakeOpenAI(llama, name=str(tiny_llama), tls=certificate) as server:
        yield server


def test_a_self_signed_server_names_ssl_cert_file_in_one_line(tls_fake, wdlmpro_data, tmp_path, capsys):
    code = main(["wdlmpro", "eval", "--model", tls_fake.url, "--data", wdlmpro_data, "--out", str(tmp_path / "r.json")])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1, err
    assert "TLS certificate is not trusted" in err and "self-signed" in err and "SSL_CERT_FILE" in err
    assert "the server is down" not in err and "failed 3 time(s)" not in err  # not retried: asking again won't help


def test_ssl_cert_file_naming_the_certificate_makes_it_work(tls_fake, certificate, llama, monkeypatch):
    monkeypatch.setenv("SSL_CERT_FILE", str(certificate[0]))
    remote = load_scorer(tls_fake.url)
    pairs = [remote.split("the dog", " runs")]
    assert remote.token_logprobs(pairs)[0].round(5).tolist() == llama.token_logprobs(pairs)[0].round(5).tolist()


def test_ssl_cert_file_of_another_certificate_says_it_does_not_hold_the_signer(tls_fake, tmp_path, monkeypatch):
    other, _ = self_signed(tmp_path, name="other")
    monkeypatch.setenv("SSL_CERT_FILE", str(other))
    with pytest.raises(ModelError) as err:
        load_scorer(tls_fake.url)
    assert f"SSL_CERT_FILE={other} does not hold the certificate that signed it" in str(err.value)


@pytest.mark.parametrize("content", [None, "not a certificate\n"])
def test_ssl_cert_file_that_cannot_be_read_is_one_line(content, tls_fake, tmp_path, monkeypatch, capsys,
                                                       wdlmpro_data):
    path = tmp_path / "ca.pem"
    if content is not None:
        path.write_text(content)
    monkeypatch.setenv("SSL_CERT_FILE", str(path))
    code = main(["wdlmpro", "eval", "--model", tls_fake.url, "--data", wdlmpro_data, "--out", str(tmp_path / "r.json")])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and f"$SSL_CERT_FILE={path} cannot be read" in err, err


def test_a_certificate_for_another_host_says_so(llama, tiny_llama, tmp_path, monkeypatch):
    cert = self_signed(tmp_path, name="elsewhere", hosts="DNS:elsewhere.example")
    monkeypatch.setenv("SSL_CERT_FILE", str(cert[0]))  # trusted, but not for 127.0.0.1
    with FakeOpenAI(llama, name=str(tiny_llama), tls=cert) as server:
        with pytest.raises(ModelError) as err:
            load_scorer(server.url)
    assert "not for this host" in str(err.value)


def test_https_to_a_plain_http_server_names_http(fake):
    with pytest.raises(ModelError) as err:
        load_scorer(fake.url.replace("http://", "https://"))
    text = str(err.value)
    assert "TLS handshake failed" in text and "use http://" in text and "the server is down" not in text, text
