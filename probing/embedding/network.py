"""Where a model may send requests, and which key it may send: what an administrator lists.

Pure (no Django). An ``openai`` model names a ``base_url`` and the environment variable holding
its key. ``ApiRules`` checks both when the model is registered and again on the worker before
the key is read: the variable must be on the administrator's list, the host must be a listed
name (or an address inside a listed network), and every address the host resolves to must be
public or listed: loopback, link-local and private addresses are refused unless listed. The
worker's HTTP client then connects only to an address it has just checked (a DNS answer that
changes after the check cannot redirect the connection), and never follows redirects.
"""

from __future__ import annotations

import ipaddress
import logging
import os
import socket
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TypeVar
from urllib.parse import urlsplit

DEFAULT_KEY_ENV = "OPENAI_API_KEY"
DEFAULT_HOST = "api.openai.com"
HOSTS_SETTING = "WORKBENCH_MODEL_API_HOSTS"
KEY_ENVS_SETTING = "WORKBENCH_MODEL_API_KEY_ENVS"

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
IPNetwork = ipaddress.IPv4Network | ipaddress.IPv6Network
Resolver = Callable[[str, int], list[str]]


class RefusedRequest(ValueError):
    """A request a model may not make; the message says what an administrator would have to list."""


def resolve(host: str, port: int) -> list[str]:
    """Every address ``host`` resolves to (OSError when it does not resolve)."""
    return sorted({info[4][0] for info in socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)})


def ip_or_none(text: str) -> IPAddress | None:
    try:
        ip = ipaddress.ip_address(text.strip("[]").split("%")[0])
    except ValueError:
        return None
    # ::ffff:127.0.0.1 is 127.0.0.1 on the wire.
    return ip.ipv4_mapped if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped else ip


@dataclass(frozen=True)
class ApiRules:
    """The key variables, host names and networks an administrator lets models use."""

    key_envs: frozenset[str] = frozenset({DEFAULT_KEY_ENV})
    hosts: frozenset[str] = frozenset({DEFAULT_HOST})
    networks: tuple[IPNetwork, ...] = ()

    @classmethod
    def from_entries(cls, hosts: Iterable[str], key_envs: Iterable[str]) -> ApiRules:
        """Host entries are names (api.openai.com), addresses (10.0.0.5) or networks (10.0.0.0/24)."""
        names, networks = set(), []
        for entry in hosts:
            try:
                networks.append(ipaddress.ip_network(entry.strip().strip("[]"), strict=False))
            except ValueError:
                names.add(entry.strip().lower().rstrip("."))
        return cls(frozenset(key_envs), frozenset(names), tuple(networks))

    def listed(self, ip: IPAddress) -> bool:
        return any(ip in network for network in self.networks)

    def address_allowed(self, ip: IPAddress) -> bool:
        return self.listed(ip) or (ip.is_global and not ip.is_multicast)

    def check_key_env(self, name: str) -> None:
        if name not in self.key_envs:
            raise RefusedRequest(
                f"api_key_env {name!r} is not a variable the administrator lets models read ({KEY_ENVS_SETTING})."
            )

    def check_url(self, url: str, resolver: Resolver = resolve) -> None:
        """Refuse a base_url on a host not listed, resolving to an address not allowed, or sending the key in clear.

        A name that does not resolve here passes (the worker resolves and checks it again when it connects).
        """
        try:
            parts = urlsplit(url)
            port = parts.port or (443 if parts.scheme == "https" else 80)
        except ValueError:
            raise RefusedRequest(f"base_url {url!r} is not a URL.") from None
        if parts.scheme not in ("https", "http") or not parts.hostname:
            raise RefusedRequest(f"base_url {url!r} must be an https:// URL.")
        if parts.username is not None or parts.password is not None:
            raise RefusedRequest("base_url must not carry a user name or password.")
        addresses = self.checked_addresses(parts.hostname, port, resolver, unresolved_ok=True)
        if parts.scheme == "http" and not (addresses and all(self.listed(ip) for ip in addresses)):
            raise RefusedRequest(
                "base_url must use https:// (http:// only for an address or network the administrator lists in "
                f"{HOSTS_SETTING})."
            )

    def checked_addresses(
        self, host: str, port: int, resolver: Resolver = resolve, unresolved_ok: bool = False
    ) -> list[IPAddress]:
        """The addresses of an allowed ``host``, every one of them allowed; RefusedRequest otherwise."""
        host = host.lower().rstrip(".")
        literal = ip_or_none(host)
        if literal is not None:
            if not self.listed(literal):
                raise RefusedRequest(f"base_url host {host} is not one the administrator allows ({HOSTS_SETTING}).")
            return [literal]
        if host not in self.hosts:
            raise RefusedRequest(f"base_url host {host!r} is not one the administrator allows ({HOSTS_SETTING}).")
        try:
            found = [ip_or_none(address) for address in resolver(host, port)]
        except OSError:
            if unresolved_ok:
                return []
            raise RefusedRequest(f"{host} does not resolve.") from None
        for ip in found:
            if ip is None or not self.address_allowed(ip):
                raise RefusedRequest(
                    f"{host} resolves to {ip}, a loopback, link-local or private address the administrator "
                    f"has not listed ({HOSTS_SETTING})."
                )
        if not found:
            raise RefusedRequest(f"{host} does not resolve.")
        return found


def http_client(rules: ApiRules | None, timeout: float, resolver: Resolver = resolve):
    """An httpx2 client for the OpenAI SDK that never follows redirects.

    With ``rules``, each connection goes to an address of an allowed host checked just before it
    connects, and proxy variables are ignored (the connection must go where it was checked).
    """
    import httpcore2
    import httpx2

    class CheckedBackend(httpcore2.SyncBackend):
        def connect_tcp(self, host: str, port: int, timeout=None, local_address=None, socket_options=None):
            address = rules.checked_addresses(host, port, resolver)[0]
            return super().connect_tcp(str(address), port, timeout, local_address, socket_options)

    transport = httpx2.HTTPTransport(trust_env=rules is None)
    if rules is not None:
        # httpx2 takes no network backend of its own: the pool it would build, with the checking one.
        transport._pool = httpcore2.ConnectionPool(
            ssl_context=httpx2.create_ssl_context(), network_backend=CheckedBackend()
        )
    return httpx2.Client(transport=transport, follow_redirects=False, timeout=timeout, trust_env=rules is None)


T = TypeVar("T")
log = logging.getLogger(__name__)


class Endpoint:
    """An OpenAI-compatible model endpoint: its address, key variable, retries and one checked client.

    Options every endpoint model reads: ``api_key_env``, ``max_retries`` (default 5),
    ``backoff_seconds`` (first wait, doubled each retry; default 1), ``timeout`` (seconds, default 60).
    With ``rules`` (every model someone registered) the key variable and ``base_url`` are checked
    before the key is read, and the connection is the checked one (``http_client``). Retries are
    ours (``call``), so they are counted (``requests``), logged and testable (``sleep``).
    """

    def __init__(
        self, base_url: str, options: dict, rules: ApiRules | None, sleep: Callable[[float], None] = time.sleep
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self.api_key_env = options.get("api_key_env") or DEFAULT_KEY_ENV
        self.rules = rules
        self.max_retries = int(options.get("max_retries", 5))
        self.backoff_seconds = float(options.get("backoff_seconds", 1.0))
        self.timeout = float(options.get("timeout", 60.0))
        self.sleep = sleep
        self.requests = 0  # HTTP attempts, retries included
        self._client = None

    def client(self):
        if self._client is None:
            import openai

            if self.rules is not None:
                self.rules.check_key_env(self.api_key_env)
                self.rules.check_url(self.base_url)
            key = os.environ.get(self.api_key_env)
            if not key:
                raise RuntimeError(f"set the environment variable {self.api_key_env} to the API key")
            self._client = openai.OpenAI(
                api_key=key,
                base_url=self.base_url,
                max_retries=0,
                timeout=self.timeout,
                http_client=http_client(self.rules, self.timeout),
            )
        return self._client

    def call(self, request: Callable[[object], T], what: str) -> T:
        """``request(client)``, again after a rate limit, a server error or a dropped connection.

        Waits ``backoff_seconds`` and doubles it each time, ``max_retries`` times at most. A request the
        rules refused (``RefusedRequest``) and any other client error (4xx) are raised at once: asking
        again would not change them.
        """
        import openai

        for attempt in range(self.max_retries + 1):
            self.requests += 1
            try:
                return request(self.client())
            except openai.APIConnectionError as error:
                if isinstance(error.__cause__, RefusedRequest):
                    raise error.__cause__ from None
                retryable = error
            except (openai.RateLimitError, openai.InternalServerError) as error:
                retryable = error
            except openai.APIStatusError as error:
                if error.status_code < 500:
                    raise
                retryable = error
            if attempt == self.max_retries:
                raise retryable
            wait = self.backoff_seconds * 2**attempt
            log.warning("%s request failed (%s); retry %d in %.1fs", what, retryable, attempt + 1, wait)
            self.sleep(wait)
        raise AssertionError("unreachable")
