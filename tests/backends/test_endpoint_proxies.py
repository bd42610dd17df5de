"""Where an endpoint's requests go: the proxy variables (HTTP_PROXY, HTTPS_PROXY, ALL_PROXY, their lower-case
spellings, NO_PROXY) read once by lexprobe, not by httpx. An API key never goes in clear through a proxy (an
http:// endpoint with a key behind a proxy is refused in one line before any request, naming the variable and
the fixes; NO_PROXY or an explicit LEXPROBE_KEY_THROUGH_PROXY=1 are the ways through); an https:// endpoint is
tunnelled; errors through a proxy name it; a proxy setting or a host lexprobe cannot use is one line (a SOCKS
proxy without socksio, an ftp:// proxy, a malformed one, an IDNA host that is not one)."""

from __future__ import annotations

import sys

import pytest

from lexprobe.cli import main
from lexprobe.errors import ModelError
from lexprobe.models import load_scorer
from tests.backends.fake_openai import FakeOpenAI, RecordingProxy, self_signed

pytestmark = pytest.mark.usefixtures("quick_retries")

SENTINEL = "sk-proxy-SENTINEL-0123456789abcdef"
PROXY_VARIABLES = ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "NO_PROXY")


@pytest.fixture(autouse=True)
def _no_proxy_settings(monkeypatch):
    """The test's own proxy settings only (none from the machine running the tests)."""
    for name in PROXY_VARIABLES:
        monkeypatch.delenv(name, raising=False)
        monkeypatch.delenv(name.lower(), raising=False)
    monkeypatch.delenv("LEXPROBE_KEY_THROUGH_PROXY", raising=False)
    monkeypatch.delenv("LEXPROBE_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)


@pytest.fixture()
def proxy():
    with RecordingProxy() as server:
        yield server


def _eval(url, data, tmp_path, capsys, *extra):
    code = main(["wdlmpro", "eval", "--model", url, "--data", data, "--out", str(tmp_path / "r.json"), *extra])
    return code, capsys.readouterr()


@pytest.mark.parametrize("variable", ["HTTP_PROXY", "http_proxy", "ALL_PROXY", "all_proxy"])
def test_a_key_is_never_sent_in_clear_through_a_proxy(variable, proxy, fake, wdlmpro_data, tmp_path, capsys,
                                                      monkeypatch):
    monkeypatch.setenv(variable, proxy.origin)
    monkeypatch.setenv("LEXPROBE_API_KEY", SENTINEL)
    code, printed = _eval(fake.url, wdlmpro_data, tmp_path, capsys)
    assert code == 2 and printed.err.count("\n") == 1, printed.err
    line = printed.err
    assert f"${variable}" in line and proxy.origin.removeprefix("http://") in line
    assert "NO_PROXY=127.0.0.1" in line and "https://" in line and "LEXPROBE_KEY_THROUGH_PROXY=1" in line
    assert proxy.seen == [] and fake.requests == []  # refused before any request
    assert SENTINEL not in printed.out + printed.err


def test_the_same_refusal_from_python(proxy, fake, monkeypatch):
    monkeypatch.setenv("HTTP_PROXY", proxy.origin)
    monkeypatch.setenv("OPENAI_API_KEY", SENTINEL)
    with pytest.raises(ModelError, match=r"\$HTTP_PROXY.*in clear"):
        load_scorer(fake.url)
    assert proxy.seen == []


@pytest.mark.parametrize("no_proxy", ["127.0.0.1", "localhost, 127.0.0.1", "*", "127.0.0.0/8", "127.0.0.1:{port}"])
def test_no_proxy_for_the_host_sends_the_key_direct(no_proxy, proxy, fake, llama, monkeypatch):
    monkeypatch.setenv("HTTP_PROXY", proxy.origin)
    monkeypatch.setenv("no_proxy", no_proxy.format(port=fake.httpd.server_address[1]))
    monkeypatch.setenv("LEXPROBE_API_KEY", SENTINEL)
    remote = load_scorer(fake.url)
    pairs = [remote.split("the dog", " runs")]
    assert remote.token_logprobs(pairs)[0].round(5).tolist() == llama.token_logprobs(pairs)[0].round(5).tolist()
    assert proxy.seen == [] and {auth for _, _, auth in fake.requests} == {f"Bearer {SENTINEL}"}


def test_no_proxy_for_another_host_or_port_does_not_bypass_it(proxy, fake, monkeypatch):
    monkeypatch.setenv("HTTP_PROXY", proxy.origin)
    monkeypatch.setenv("NO_PROXY", f"example.org,10.0.0.0/8,127.0.0.1:{fake.httpd.server_address[1] + 1}")
    monkeypatch.setenv("LEXPROBE_API_KEY", SENTINEL)
    with pytest.raises(ModelError, match="in clear"):
        load_scorer(fake.url)


def test_the_explicit_choice_sends_the_key_through_the_proxy(proxy, fake, monkeypatch):
    monkeypatch.setenv("http_proxy", proxy.origin)
    monkeypatch.setenv("LEXPROBE_API_KEY", SENTINEL)
    monkeypatch.setenv("LEXPROBE_KEY_THROUGH_PROXY", "1")
    load_scorer(fake.url)
    assert proxy.seen and all(target.startswith(fake.url.removesuffix("/v1")) for _, target, _ in proxy.seen)
    assert {headers.get("Authorization") for _, _, headers in proxy.seen} == {f"Bearer {SENTINEL}"}


def test_without_a_key_requests_go_through_the_proxy(proxy, fake, llama, monkeypatch):
    monkeypatch.setenv("ALL_PROXY", proxy.origin)
    remote = load_scorer(fake.url)
    pairs = [remote.split("a cat", " sat")]
    assert remote.token_logprobs(pairs)[0].round(5).tolist() == llama.token_logprobs(pairs)[0].round(5).tolist()
    assert any(target.endswith("/v1/completions") for _, target, _ in proxy.seen)
    assert not any("Authorization" in headers for _, _, headers in proxy.seen)


def test_an_https_endpoint_is_tunnelled_and_the_proxy_sees_no_key(proxy, llama, tiny_llama, tmp_path, monkeypatch):
    cert, key = self_signed(tmp_path)
    monkeypatch.setenv("SSL_CERT_FILE", str(cert))
    monkeypatch.setenv("HTTPS_PROXY", proxy.origin)
    monkeypatch.setenv("LEXPROBE_API_KEY", SENTINEL)
    with FakeOpenAI(llama, name=str(tiny_llama), tls=(cert, key)) as server:
        remote = load_scorer(server.url)
        pairs = [remote.split("the dog", " runs")]
        assert remote.token_logprobs(pairs)[0].round(5).tolist() == llama.token_logprobs(pairs)[0].round(5).tolist()
        assert {auth for _, _, auth in server.requests} == {f"Bearer {SENTINEL}"}
    assert proxy.seen and {method for method, _, _ in proxy.seen} == {"CONNECT"}
    assert not any(SENTINEL in str(headers) for _, _, headers in proxy.seen)


@pytest.mark.parametrize("status", [502, 503])
def test_errors_through_a_proxy_name_the_proxy(status, proxy, fake, monkeypatch):
    monkeypatch.setenv("HTTP_PROXY", proxy.origin)
    proxy.answer = status
    with pytest.raises(ModelError) as err:
        load_scorer(fake.url)
    text = str(err.value)
    assert f"the proxy {proxy.origin} (from $HTTP_PROXY)" in text and "NO_PROXY=127.0.0.1" in text, text
    assert "the server is down" not in text and "\n" not in text


def test_a_dead_proxy_is_named_not_the_server(fake, monkeypatch):
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        dead = f"http://127.0.0.1:{s.getsockname()[1]}"
    monkeypatch.setenv("all_proxy", dead)
    with pytest.raises(ModelError) as err:
        load_scorer(fake.url)
    assert f"the proxy {dead} (from $all_proxy)" in str(err.value) and fake.requests == []


def test_a_proxy_asking_for_credentials_says_so(proxy, fake, monkeypatch):
    monkeypatch.setenv("HTTP_PROXY", proxy.origin)
    proxy.answer = 407
    with pytest.raises(ModelError) as err:
        load_scorer(fake.url)
    assert "asks for credentials" in str(err.value) and "$HTTP_PROXY" in str(err.value)
    assert len(proxy.seen) == 1  # not retried


PROXY_SETTINGS = {
    "socks5 without socksio": ("ALL_PROXY", "socks5://127.0.0.1:1", "socksio"),
    "socks5h without socksio": ("all_proxy", "socks5h://127.0.0.1:1", "socksio"),
    "ftp": ("HTTP_PROXY", "ftp://127.0.0.1:21", "not an http, https or socks5 proxy URL"),
    "a port that is not a number": ("http_proxy", "http://127.0.0.1:port", "port is not a number"),
    "an IPv6 address not closed": ("HTTP_PROXY", "http://[::1", "not a valid URL"),
    "an IDNA host that is not one": ("ALL_PROXY", "http://xn--:3128", "not a valid host name"),
    "no host": ("HTTP_PROXY", "http://:3128", "names no proxy host"),
    "a control character": ("HTTP_PROXY", "http://127.0.0.1:3128/\x1b[2J", "control character"),
}


@pytest.mark.parametrize("case", list(PROXY_SETTINGS))
def test_a_proxy_setting_lexprobe_cannot_use_is_one_line(case, fake, wdlmpro_data, tmp_path, capsys, monkeypatch):
    variable, value, message = PROXY_SETTINGS[case]
    monkeypatch.setitem(sys.modules, "socksio", None)  # not installed (an import of it fails)
    monkeypatch.setenv(variable, value)
    code, printed = _eval(fake.url, wdlmpro_data, tmp_path, capsys)
    assert code == 2 and printed.err.count("\n") == 1 and printed.err.startswith("lexprobe: error: "), printed.err
    assert message in printed.err and f"${variable}" in printed.err and "NO_PROXY=127.0.0.1" in printed.err
    assert "Traceback" not in printed.err and "\x1b" not in printed.err and fake.requests == []


def test_a_proxy_for_another_scheme_is_not_read(fake, monkeypatch):
    """``HTTPS_PROXY`` broken does not matter to an http:// endpoint (its requests do not go through it)."""
    monkeypatch.setenv("HTTPS_PROXY", "ftp://127.0.0.1:21")
    load_scorer(fake.url)
    assert fake.requests


def test_a_proxy_password_is_never_shown(fake, monkeypatch, capsys, wdlmpro_data, tmp_path):
    secret = "pr0xy-passw0rd-SENTINEL"
    monkeypatch.setenv("HTTP_PROXY", f"ftp://user:{secret}@127.0.0.1:21")
    code, printed = _eval(fake.url, wdlmpro_data, tmp_path, capsys)
    assert code == 2 and secret not in printed.err and "ftp://127.0.0.1:21" in printed.err


@pytest.mark.parametrize("url,message", [("http://xn--/v1", "not a valid host name"),
                                         ("http://a..b:8000/v1", "not a valid host name"),
                                         ("http://" + "a" * 64 + ".org/v1", "not a valid host name"),
                                         ("https://xn--zz-/v1", "not a valid host name"),
                                         ("http://[::1:8000/v1", "not a valid URL")])
def test_a_host_no_resolver_takes_is_one_line(url, message, wdlmpro_data, tmp_path, capsys):
    code, printed = _eval(url, wdlmpro_data, tmp_path, capsys)
    assert code == 2 and printed.err.count("\n") == 1 and message in printed.err, printed.err
    assert "Traceback" not in printed.err


@pytest.mark.parametrize("url,no_proxy,direct", [
    ("http://api.example.org/v1", ".example.org", True), ("http://api.example.org/v1", "example.org", True),
    ("http://wwwexample.org/v1", "example.org", False), ("http://[::1]:8000/v1", "::1", True),
    ("http://[::1]:8000/v1", "[::1]:8000", True), ("http://[::1]:8000/v1", "[::1]:9", False),
    ("https://h.example/v1", "h.example:443", True), ("http://10.1.2.3/v1", "10.0.0.0/8", True),
    ("http://10.1.2.3/v1", "http://[::1, 10.1.2.3", True), ("http://h.example/v1", "", False)])
def test_no_proxy_forms(url, no_proxy, direct, monkeypatch):
    from lexprobe.backends.proxies import proxy_for

    monkeypatch.setenv("ALL_PROXY", "http://127.0.0.1:3128")
    monkeypatch.setenv("NO_PROXY", no_proxy)
    assert (proxy_for(url, key=False) is None) == direct
