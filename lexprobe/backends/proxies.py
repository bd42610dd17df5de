"""Which proxy an endpoint's requests go through, decided once, here, and checked before any request.

httpx would pick a proxy from ``HTTP_PROXY``/``HTTPS_PROXY``/``ALL_PROXY`` (and ``NO_PROXY``) by itself, build
it when the client is made (``socks5://`` without ``socksio``: an ImportError; ``ftp://``: a ValueError) and
send an ``http://`` endpoint's ``Authorization: Bearer`` key to it in clear. Here the same variables are read
once for the endpoint's one origin (lexprobe follows no redirect, so there is no other): the proxy that
applies is checked (its URL, its scheme, the package a SOCKS proxy needs) and named in every error, and the
client is given it explicitly (httpx reads no proxy variable itself). A key is never sent in clear through a
proxy: an ``http://`` endpoint with a key behind a proxy is refused in one line naming the variable and the
fixes (``NO_PROXY`` for the host, ``https://``), unless ``$LEXPROBE_KEY_THROUGH_PROXY=1`` says the proxy is
trusted. Through a proxy an ``https://`` endpoint is tunnelled (CONNECT): the proxy sees no header.
"""

from __future__ import annotations

import ipaddress
import os
import urllib.parse
import urllib.request
from dataclasses import dataclass

import httpx

from lexprobe.errors import ModelError
from lexprobe.redaction import register_secret

#: the explicit choice to send an API key through a proxy in clear (an ``http://`` endpoint behind a proxy
#: one trusts): ``1``
KEY_THROUGH_PROXY = "LEXPROBE_KEY_THROUGH_PROXY"
#: the proxy schemes httpx speaks (``socks5``/``socks5h`` with the ``socksio`` package)
SCHEMES = ("http", "https", "socks5", "socks5h")


@dataclass(frozen=True)
class Proxy:
    """The proxy an endpoint's requests go through: ``url`` as httpx takes it (with its user:pass, if any),
    ``shown`` without them, ``source`` the variable that named it."""

    url: str
    shown: str
    source: str

    def __str__(self) -> str:
        return f"the proxy {self.shown} (from {self.source})"


def check_host(shown: str, what: str, fix: str = "fix the URL") -> httpx.URL:
    """``shown`` (an http(s) URL) parsed as httpx sends it, its host one a resolver takes (``xn--`` is not an
    IDNA label; a label is 1 to 63 characters), or one line naming ``what`` (``--model 'http://...'``)."""
    try:
        url = httpx.URL(shown)
        url.host  # noqa: B018 - an A-label that does not decode (xn--) raises here, as it would in the request
        host = url.raw_host.decode("ascii")
        if host and not _is_ip(host):
            host.encode("idna")  # what the resolver does with it: an empty or too long label fails here
    except (httpx.InvalidURL, ValueError) as err:  # idna.IDNAError and UnicodeError are ValueErrors
        raise ModelError(f"{what}: the host is not a valid host name ({err}); {fix}") from None
    return url


def proxy_for(url: str, key: bool) -> Proxy | None:
    """The proxy the environment names for ``url`` (an endpoint's base URL, checked), checked; None when the
    requests go direct. ``key``: an API key goes with every request (refused in clear through a proxy)."""
    target = httpx.URL(url)
    scheme = target.scheme
    named = _variable(scheme) or _variable("all")
    if named is None:
        system = urllib.request.getproxies()  # macOS and Windows settings (on Linux: the variables, none)
        value = system.get(scheme) or system.get("all")
        if not value:
            return None
        named = ("the system's proxy settings", value)
    source, value = named
    if _bypassed(target):
        return None
    proxy = _checked(source, value, target)
    if key and scheme == "http" and os.environ.get(KEY_THROUGH_PROXY, "").strip() != "1":
        raise ModelError(
            f"{proxy} would receive the API key in clear with every request to {url} (an http:// endpoint "
            f"behind a proxy): bypass the proxy for this host (NO_PROXY={target.host}), serve the endpoint "
            f"over https://, or set {KEY_THROUGH_PROXY}=1 if you trust the proxy")
    return proxy


def _variable(scheme: str) -> tuple[str, str] | None:
    """(``$name``, value) of ``<scheme>_proxy``: the lower-case spelling first, as curl and urllib read them
    (``HTTP_PROXY`` is ignored in a CGI request, where a client may set it: httpoxy)."""
    names = [f"{scheme}_proxy", f"{scheme.upper()}_PROXY"]
    if scheme == "http" and "REQUEST_METHOD" in os.environ:
        names.pop()
    for name in names:
        value = os.environ.get(name, "").strip()
        if value:
            return f"${name}", value
    return None


def _checked(source: str, value: str, target: httpx.URL) -> Proxy:
    """The proxy URL of ``source``, parsed and checked, or one line naming the variable and the fix."""
    text = value if "://" in value else f"http://{value}"  # a bare host:port means http (as httpx reads it)
    bypass = f"or bypass it for this host (NO_PROXY={target.host})"
    try:
        parts = urllib.parse.urlsplit(text)
    except ValueError as err:  # an IPv6 address not closed
        raise ModelError(f"{source} is not a valid URL ({err}; it is not shown here): fix it, {bypass}") from None
    secret = parts.password
    register_secret(secret)
    register_secret(urllib.parse.unquote(secret) if secret else None)
    try:
        port = f":{parts.port}" if parts.port is not None else ""
        shown = f"{parts.scheme}://{parts.hostname or ''}{port}"
    except ValueError:
        shown = f"{parts.scheme}://{parts.netloc.rpartition('@')[2]}"
    if any(c.isspace() or not c.isprintable() for c in text):
        raise ModelError(f"{source} holds whitespace or a control character (it is not shown here): fix it, {bypass}")
    if parts.scheme.lower() not in SCHEMES:
        raise ModelError(f"{source}={shown} is not an http, https or socks5 proxy URL: fix or unset it, {bypass}")
    if not parts.hostname:
        raise ModelError(f"{source}={shown} names no proxy host: fix or unset it, {bypass}")
    try:
        parts.port  # noqa: B018 - a port that is not a number raises here
    except ValueError:
        raise ModelError(f"{source}={shown}: the port is not a number from 0 to 65535: fix it, {bypass}") from None
    check_host(shown.replace(parts.scheme, "http", 1), f"{source}={shown}", f"fix it, {bypass}")
    if parts.scheme.lower().startswith("socks"):
        try:
            import socksio  # noqa: F401 - httpx's SOCKS support
        except ImportError:
            raise ModelError(f"{source}={shown} is a SOCKS proxy, which needs the socksio package: "
                             f"`pip install 'httpx[socks]'`, {bypass}") from None
    return Proxy(url=text, shown=shown, source=source)


def _bypassed(target: httpx.URL) -> bool:
    """``NO_PROXY`` (or ``no_proxy``) names ``target``'s host: ``*``, the host, a domain it is in (``.x.org``
    or ``x.org``), an address or a network (``10.0.0.0/8``), each with an optional ``:port``."""
    entries = os.environ.get("no_proxy") or os.environ.get("NO_PROXY") or ""
    host, port = target.host.lower(), target.port or {"http": 80, "https": 443}[target.scheme]
    for entry in (e.strip().lower() for e in entries.split(",")):
        if "://" in entry:
            try:
                entry = urllib.parse.urlsplit(entry).netloc
            except ValueError:  # not a URL (an IPv6 address not closed): it names no host
                continue
        if entry == "*":
            return True
        name, wanted = _host_and_port(entry)
        domain = name.lstrip("*.")
        if not domain or (wanted and wanted != str(port)):
            continue
        if host == domain or host.endswith("." + domain) or _in_network(host, name):
            return True
    return False


def _host_and_port(entry: str) -> tuple[str, str]:
    """(host, port or "") of a ``NO_PROXY`` entry: ``host``, ``host:port``, ``[v6]:port`` or a bare IPv6
    address (several colons, no port)."""
    if entry.startswith("["):
        host, _, rest = entry[1:].partition("]")
        return host, rest[1:] if rest.startswith(":") else ""
    if entry.count(":") == 1:
        host, _, port = entry.partition(":")
        return host, port
    return entry, ""


def _in_network(host: str, entry: str) -> bool:
    if not _is_ip(host):
        return False
    try:
        return ipaddress.ip_address(host) in ipaddress.ip_network(entry, strict=False)
    except ValueError:
        return False


def _is_ip(host: str) -> bool:
    try:
        ipaddress.ip_address(host.strip("[]"))
    except ValueError:
        return False
    return True
