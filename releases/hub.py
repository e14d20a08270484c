"""Publishing a release on the Hugging Face Hub: its hf/ folder as a dataset repository (push_release --to-hub).

What is pushed is what ``export_release --format hf`` writes: the hf/ folder of the published
release as readers get it (``files_with_doi``), README.md and one Parquet file per config, at the
root of the dataset repository, in one commit. A draft is never pushed, nor a release made before
releases had an hf/ folder (its files cannot change: a new version is made instead).

The endpoint (``WORKBENCH_HUB_ENDPOINT``: the Hub, or a self-hosted mirror) obeys the rules a model
endpoint obeys (``probing.embedding.network``, which a release cannot import: probing sits above it,
so the rules are restated here, for hosts only):

- its host must be listed in ``WORKBENCH_HUB_HOSTS`` (a name, an address or a network), which is
  checked before any request; ``http://`` only for a listed address or network;
- every address a listed name resolves to must be public or listed (loopback, link-local and
  private ones are refused otherwise), checked just before each connection, which then goes to
  that address, ignoring proxy variables;
- no redirect is followed: a 3xx answer ends the push with an error naming where it pointed.

Every request huggingface_hub makes during a push goes through that client, its own side requests
too (it asks huggingface.co for a list of coding agents to name in its user agent): refused unless
their host is listed.

The token is ``HF_TOKEN``'s, read by the caller (never a setting), sent to the endpoint only and
never logged. The contents of large files (LFS/Xet: on the real Hub, the Parquet files) go where the
Hub's own storage says, through ``hf_xet``, with a short-lived write token the Hub issues; without
hf_xet they go through the checked client, so their storage host must be listed too.

huggingface_hub and httpx2 (requirements/ml.txt) are imported when a push runs.
"""

from __future__ import annotations

import ipaddress
import socket
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from urllib.parse import urlsplit

from django.conf import settings

from releases.doi_actions import files_with_doi
from releases.formats.hf import HF_DIR, hf_folder
from releases.models import Release, ReleaseError

TOKEN_ENV = "HF_TOKEN"
ENDPOINT_SETTING = "WORKBENCH_HUB_ENDPOINT"
HOSTS_SETTING = "WORKBENCH_HUB_HOSTS"
TIMEOUT_SECONDS = 120.0

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
IPNetwork = ipaddress.IPv4Network | ipaddress.IPv6Network
Resolver = Callable[[str, int], list[str]]


class HubError(ReleaseError):
    """A push the rules refuse or the Hub rejects; the message says why (never the token)."""


def resolve(host: str, port: int) -> list[str]:
    """Every address ``host`` resolves to (OSError when it does not resolve)."""
    return sorted({info[4][0] for info in socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)})


def ip_or_none(text: str) -> IPAddress | None:
    try:
        ip = ipaddress.ip_address(text.strip("[]").split("%")[0])
    except ValueError:
        return None
    return ip.ipv4_mapped if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped else ip


@dataclass(frozen=True)
class HubHosts:
    """The host names and networks a push may reach (``WORKBENCH_HUB_HOSTS``)."""

    names: frozenset[str]
    networks: tuple[IPNetwork, ...] = ()

    @classmethod
    def from_entries(cls, entries: Iterable[str]) -> HubHosts:
        names, networks = set(), []
        for entry in entries:
            try:
                networks.append(ipaddress.ip_network(entry.strip().strip("[]"), strict=False))
            except ValueError:
                names.add(entry.strip().lower().rstrip("."))
        return cls(frozenset(names), tuple(networks))

    def listed(self, ip: IPAddress) -> bool:
        return any(ip in network for network in self.networks)

    def check_endpoint(self, endpoint: str) -> None:
        """Refuse an endpoint that is not an http(s) URL of a listed host (http:// only for a listed address)."""
        try:
            parts = urlsplit(endpoint)
            parts.port  # noqa: B018 - a port that is not a number raises here
        except ValueError:
            raise HubError(f"{ENDPOINT_SETTING}={endpoint!r} is not a URL.") from None
        if parts.scheme not in ("https", "http") or not parts.hostname or parts.username or parts.password:
            raise HubError(f"{ENDPOINT_SETTING}={endpoint!r} must be an https:// URL without a user or password.")
        host = parts.hostname.lower().rstrip(".")
        literal = ip_or_none(host)
        if not (self.listed(literal) if literal is not None else host in self.names):
            raise HubError(f"the Hub endpoint's host {host} is not one the administrator allows ({HOSTS_SETTING}).")
        if parts.scheme == "http" and literal is None:
            raise HubError(
                f"{ENDPOINT_SETTING} must use https:// (http:// only for an address or network listed in "
                f"{HOSTS_SETTING})."
            )

    def checked_addresses(self, host: str, port: int, resolver: Resolver = resolve) -> list[IPAddress]:
        """The addresses of a listed ``host``, each public or listed; HubError otherwise."""
        host = host.lower().rstrip(".")
        literal = ip_or_none(host)
        if literal is not None:
            if not self.listed(literal):
                raise HubError(f"{host} is not a host the administrator allows ({HOSTS_SETTING}).")
            return [literal]
        if host not in self.names:
            raise HubError(f"{host} is not a host the administrator allows ({HOSTS_SETTING}).")
        try:
            found = [ip_or_none(address) for address in resolver(host, port)]
        except OSError:
            raise HubError(f"{host} does not resolve.") from None
        for ip in found:
            if ip is None or not (self.listed(ip) or (ip.is_global and not ip.is_multicast)):
                raise HubError(
                    f"{host} resolves to {ip}, a loopback, link-local or private address the administrator has not "
                    f"listed ({HOSTS_SETTING})."
                )
        if not found:
            raise HubError(f"{host} does not resolve.")
        return found


def checked_client(hosts: HubHosts, resolver: Resolver = resolve):
    """An httpx2 client that connects only to checked addresses of listed hosts and follows no redirect."""
    import httpcore2
    import httpx2

    class CheckedBackend(httpcore2.SyncBackend):
        def connect_tcp(self, host: str, port: int, timeout=None, local_address=None, socket_options=None):
            address = hosts.checked_addresses(host, port, resolver)[0]
            return super().connect_tcp(str(address), port, timeout, local_address, socket_options)

    def refuse_redirect(response) -> None:
        # huggingface_hub reads some 3xx answers as success: the push stops here, before it reads one.
        if response.is_redirect:
            request = response.request
            raise HubError(
                f"the Hub answered {request.method} {request.url} with a redirect to "
                f"{response.headers.get('location')}: a push follows no redirect (set {ENDPOINT_SETTING} to the "
                "address it ends at)"
            )

    transport = httpx2.HTTPTransport(trust_env=False)
    # httpx2 takes no network backend of its own: the pool it would build, with the checking one.
    transport._pool = httpcore2.ConnectionPool(
        ssl_context=httpx2.create_ssl_context(), network_backend=CheckedBackend()
    )
    return httpx2.Client(
        transport=transport,
        follow_redirects=False,
        trust_env=False,
        timeout=TIMEOUT_SECONDS,
        event_hooks={"response": [refuse_redirect]},
    )


@contextmanager
def hub_session(hosts: HubHosts, resolver: Resolver = resolve) -> Iterator[None]:
    """huggingface_hub's requests through ``checked_client`` while the block runs (it has one client per process)."""
    from huggingface_hub import set_client_factory
    from huggingface_hub.utils import _http

    # Put back whatever factory was in place (huggingface_hub has no public reader of it).
    previous = _http._GLOBAL_CLIENT_FACTORY
    set_client_factory(lambda: checked_client(hosts, resolver))
    try:
        yield
    finally:
        set_client_factory(previous)


def hf_files(release: Release) -> dict[str, bytes]:
    """The hf/ folder of a published release, named from inside it; HubError for a draft or a release without one."""
    if not release.is_published:
        raise HubError(f"release {release.version} is a draft: publish it before pushing it to the Hub")
    if not (files := hf_folder(files_with_doi(release))):
        raise HubError(
            f"release {release.version} has no {HF_DIR}/ folder (it was made before releases had one) and its files "
            "cannot change: make a new version to push it"
        )
    return files


def push_to_hub(
    release: Release,
    repo_id: str,
    endpoint: str,
    token: str,
    private: bool = False,
    hosts: Iterable[str] | None = None,
    resolver: Resolver = resolve,
) -> str:
    """Upload the release's hf/ folder to the dataset repository ``repo_id`` (created when missing): the commit's URL.

    ``hosts``: the allowed hosts (default ``WORKBENCH_HUB_HOSTS``). Checked before any request: the
    release (published, with an hf/ folder), the token (given), the endpoint (a listed host).
    """
    files = hf_files(release)
    if not token:
        raise HubError(f"set the environment variable {TOKEN_ENV} to a Hugging Face token with write access")
    allowed = HubHosts.from_entries(settings.WORKBENCH_HUB_HOSTS if hosts is None else hosts)
    allowed.check_endpoint(endpoint)
    from huggingface_hub import CommitOperationAdd, HfApi, constants
    from huggingface_hub.errors import HfHubHTTPError, HFValidationError

    if constants.is_offline_mode():
        raise HubError("HF_HUB_OFFLINE is set: unset it to push a release to the Hub")
    api = HfApi(endpoint=endpoint.rstrip("/"), token=token)
    operations = [CommitOperationAdd(path_in_repo=path, path_or_fileobj=data) for path, data in files.items()]
    try:
        with hub_session(allowed, resolver):
            api.create_repo(repo_id, repo_type="dataset", private=private, exist_ok=True)
            commit = api.create_commit(
                repo_id,
                operations,
                repo_type="dataset",
                commit_message=f"Release {release.version}",
                commit_description=f"{release.title or 'Release'} {release.version}: its {HF_DIR}/ folder, as "
                f"export_release --format hf writes it (manifest checksum {release.checksum}).",
            )
    except HFValidationError as error:
        raise HubError(f"{repo_id!r} is not a repository name such as my-lab/idiomaticity: {error}") from None
    except HfHubHTTPError as error:
        response = error.response
        raise HubError(
            f"the Hub refused {response.request.method} {response.request.url}: {response.status_code} "
            f"{response.reason_phrase}"
        ) from None
    return commit.commit_url
