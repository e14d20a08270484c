"""Where an outbound request may go: the hosts an administrator lists, the addresses they resolve to, the client.

Pure: no Django. Every request the workbench sends to a server of someone's choosing obeys one set
of rules (a model endpoint's ``base_url`` in ``probing.embedding.network``, the Hub endpoint of
``push_release --to-hub`` in ``releases.hub``); ``HostRules`` holds them, with the words its
messages use (the setting that lists the hosts, the name of what is checked):

- the host must be a listed name, or an address inside a listed network;
- every address a listed name resolves to must be public or listed: loopback, link-local, private
  and multicast addresses are refused unless listed (``::ffff:10.0.0.1`` is ``10.0.0.1``);
- a URL is ``https://`` (``http://`` only when every address it reaches is listed) and carries no
  user name or password.

``checked_http_client`` connects only to an address checked just before connecting (a DNS answer
that changes after a check cannot redirect the connection), ignores proxy variables (the
connection must go where it was checked) and never follows redirects. httpx2 and httpcore2 are
imported when a client is made.
"""

from __future__ import annotations

import ipaddress
import socket
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from urllib.parse import urlsplit

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
IPNetwork = ipaddress.IPv4Network | ipaddress.IPv6Network
Resolver = Callable[[str, int], list[str]]


class RefusedRequest(ValueError):
    """A request the rules refuse; the message says what an administrator would have to list."""


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
class HostRules:
    """The host names and networks an administrator lists, and the words a refusal uses.

    ``setting``: where the administrator lists them (``WORKBENCH_MODEL_API_HOSTS``); ``subject``:
    what is checked, as the messages name it (``base_url``, ``WORKBENCH_HUB_ENDPOINT``).
    """

    setting: str
    subject: str
    names: frozenset[str] = frozenset()
    networks: tuple[IPNetwork, ...] = ()

    @classmethod
    def from_entries(cls, entries: Iterable[str], setting: str, subject: str) -> HostRules:
        """Entries are names (api.openai.com), addresses (10.0.0.5) or networks (10.0.0.0/24)."""
        names, networks = set(), []
        for entry in entries:
            try:
                networks.append(ipaddress.ip_network(entry.strip().strip("[]"), strict=False))
            except ValueError:
                names.add(entry.strip().lower().rstrip("."))
        return cls(setting, subject, frozenset(names), tuple(networks))

    def listed(self, ip: IPAddress) -> bool:
        return any(ip in network for network in self.networks)

    def address_allowed(self, ip: IPAddress) -> bool:
        return self.listed(ip) or (ip.is_global and not ip.is_multicast)

    def check_url(self, url: str, resolver: Resolver | None = resolve, unresolved_ok: bool = True) -> None:
        """Refuse a URL on a host not listed, resolving to an address not allowed, or sent in clear.

        A name that does not resolve here passes with ``unresolved_ok`` (the client resolves and
        checks it again when it connects). ``resolver=None`` checks a name's listing only, leaving
        its addresses to the connection; ``http://`` is then for a listed address or network only.
        """
        try:
            parts = urlsplit(url)
            port = parts.port or (443 if parts.scheme == "https" else 80)
        except ValueError:
            raise RefusedRequest(f"{self.subject} {url!r} is not a URL.") from None
        if parts.scheme not in ("https", "http") or not parts.hostname:
            raise RefusedRequest(f"{self.subject} {url!r} must be an https:// URL.")
        if parts.username is not None or parts.password is not None:
            raise RefusedRequest(f"{self.subject} must not carry a user name or password.")
        if resolver is None:
            literal = self.listed_host(parts.hostname)
            addresses = [] if literal is None else [literal]
        else:
            addresses = self.checked_addresses(parts.hostname, port, resolver, unresolved_ok)
        if parts.scheme == "http" and not (addresses and all(self.listed(ip) for ip in addresses)):
            raise RefusedRequest(
                f"{self.subject} must use https:// (http:// only for an address or network the administrator lists "
                f"in {self.setting})."
            )

    def listed_host(self, host: str) -> IPAddress | None:
        """The address ``host`` is (inside a listed network), None for a listed name; RefusedRequest otherwise."""
        host = host.lower().rstrip(".")
        literal = ip_or_none(host)
        if literal is not None:
            if not self.listed(literal):
                raise RefusedRequest(
                    f"{self.subject} host {host} is not one the administrator allows ({self.setting})."
                )
            return literal
        if host not in self.names:
            raise RefusedRequest(f"{self.subject} host {host!r} is not one the administrator allows ({self.setting}).")
        return None

    def checked_addresses(
        self, host: str, port: int, resolver: Resolver = resolve, unresolved_ok: bool = False
    ) -> list[IPAddress]:
        """The addresses of an allowed ``host``, every one of them allowed; RefusedRequest otherwise."""
        literal = self.listed_host(host)
        if literal is not None:
            return [literal]
        host = host.lower().rstrip(".")
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
                    f"has not listed ({self.setting})."
                )
        if not found:
            raise RefusedRequest(f"{host} does not resolve.")
        return found


def checked_http_client(
    rules: HostRules | None,
    timeout: float,
    resolver: Resolver = resolve,
    on_response: Callable[[object], None] | None = None,
):
    """An httpx2 client that never follows redirects; ``on_response`` sees every answer before the caller.

    With ``rules``, each connection goes to an address of an allowed host checked just before it
    connects (RefusedRequest otherwise), and proxy variables are ignored. Without, it is a plain
    client that reads them.
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
    return httpx2.Client(
        transport=transport,
        follow_redirects=False,
        timeout=timeout,
        trust_env=rules is None,
        event_hooks={"response": [on_response] if on_response else []},
    )
