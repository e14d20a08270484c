"""Publishing a release on the Hugging Face Hub: its hf/ folder as a dataset repository (push_release --to-hub).

What is pushed is what ``export_release --format hf`` writes: the hf/ folder of the published
release as readers get it (``files_with_doi``), README.md and one Parquet file per config, at the
root of the dataset repository, in one commit. A draft is never pushed, nor a release made before
releases had an hf/ folder (its files cannot change: a new version is made instead).

The endpoint (``WORKBENCH_HUB_ENDPOINT``: the Hub, or a self-hosted mirror) obeys the rules every
outbound request obeys (``core.egress``, the ones a model endpoint obeys too), its hosts listed in
``WORKBENCH_HUB_HOSTS``:

- its host must be listed (a name, an address or a network), which is checked before any request;
  ``http://`` only for a listed address or network;
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

from collections.abc import Iterable, Iterator
from contextlib import contextmanager

from django.conf import settings

from core.egress import HostRules, RefusedRequest, Resolver, checked_http_client, resolve
from releases.doi_actions import files_with_doi
from releases.formats.hf import HF_DIR, hf_folder
from releases.models import Release, ReleaseError

TOKEN_ENV = "HF_TOKEN"
ENDPOINT_SETTING = "WORKBENCH_HUB_ENDPOINT"
HOSTS_SETTING = "WORKBENCH_HUB_HOSTS"
TIMEOUT_SECONDS = 120.0


class HubError(ReleaseError):
    """A push the rules refuse or the Hub rejects; the message says why (never the token)."""


def hub_hosts(entries: Iterable[str]) -> HostRules:
    """The hosts a push may reach (``WORKBENCH_HUB_HOSTS``), named so in what they refuse."""
    return HostRules.from_entries(entries, HOSTS_SETTING, ENDPOINT_SETTING)


def checked_client(hosts: HostRules, resolver: Resolver = resolve):
    """An httpx2 client that connects only to checked addresses of listed hosts and follows no redirect."""

    def refuse_redirect(response) -> None:
        # huggingface_hub reads some 3xx answers as success: the push stops here, before it reads one.
        if response.is_redirect:
            request = response.request
            raise HubError(
                f"the Hub answered {request.method} {request.url} with a redirect to "
                f"{response.headers.get('location')}: a push follows no redirect (set {ENDPOINT_SETTING} to the "
                "address it ends at)"
            )

    return checked_http_client(hosts, TIMEOUT_SECONDS, resolver, on_response=refuse_redirect)


@contextmanager
def hub_session(hosts: HostRules, resolver: Resolver = resolve) -> Iterator[None]:
    """huggingface_hub's requests through ``checked_client`` while the block runs (it has one client per process).

    A connection the rules refuse ends the block with a HubError.
    """
    from huggingface_hub import set_client_factory
    from huggingface_hub.utils import _http

    # Put back whatever factory was in place (huggingface_hub has no public reader of it).
    previous = _http._GLOBAL_CLIENT_FACTORY
    set_client_factory(lambda: checked_client(hosts, resolver))
    try:
        yield
    except RefusedRequest as error:
        raise HubError(str(error)) from None
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
    allowed = hub_hosts(settings.WORKBENCH_HUB_HOSTS if hosts is None else hosts)
    try:
        # Names are resolved and checked when each connection is made (hub_session).
        allowed.check_url(endpoint, resolver=None)
    except RefusedRequest as error:
        raise HubError(str(error)) from None
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
