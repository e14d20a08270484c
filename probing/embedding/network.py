"""Where a model may send requests, and which key it may send: what an administrator lists.

Pure (no Django). An ``openai`` model names a ``base_url`` and the environment variable holding
its key. ``ApiRules`` checks both when the model is registered and again on the worker before
the key is read: the variable must be on the administrator's list, and ``base_url`` must obey
the rules every outbound request obeys (``core.egress.HostRules``, with
``WORKBENCH_MODEL_API_HOSTS``): a listed host, every address it resolves to public or listed,
https:// unless the addresses are listed. The worker's HTTP client (``http_client``) then
connects only to an address it has just checked, and never follows redirects.
"""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import cached_property
from typing import TypeVar

# RefusedRequest, Resolver and resolve are imported from here by the modules that call models.
from core.egress import HostRules, IPAddress, IPNetwork, RefusedRequest, Resolver, checked_http_client, resolve

DEFAULT_KEY_ENV = "OPENAI_API_KEY"
DEFAULT_HOST = "api.openai.com"
HOSTS_SETTING = "WORKBENCH_MODEL_API_HOSTS"
KEY_ENVS_SETTING = "WORKBENCH_MODEL_API_KEY_ENVS"


@dataclass(frozen=True)
class ApiRules:
    """The key variables, host names and networks an administrator lets models use."""

    key_envs: frozenset[str] = frozenset({DEFAULT_KEY_ENV})
    hosts: frozenset[str] = frozenset({DEFAULT_HOST})
    networks: tuple[IPNetwork, ...] = ()

    @classmethod
    def from_entries(cls, hosts: Iterable[str], key_envs: Iterable[str]) -> ApiRules:
        """Host entries are names (api.openai.com), addresses (10.0.0.5) or networks (10.0.0.0/24)."""
        rules = HostRules.from_entries(hosts, HOSTS_SETTING, "base_url")
        return cls(frozenset(key_envs), rules.names, rules.networks)

    @cached_property
    def host_rules(self) -> HostRules:
        return HostRules(HOSTS_SETTING, "base_url", self.hosts, self.networks)

    def listed(self, ip: IPAddress) -> bool:
        return self.host_rules.listed(ip)

    def address_allowed(self, ip: IPAddress) -> bool:
        return self.host_rules.address_allowed(ip)

    def check_key_env(self, name: str) -> None:
        if name not in self.key_envs:
            raise RefusedRequest(
                f"api_key_env {name!r} is not a variable the administrator lets models read ({KEY_ENVS_SETTING})."
            )

    def check_url(self, url: str, resolver: Resolver = resolve) -> None:
        """Refuse a base_url on a host not listed, resolving to an address not allowed, or sending the key in clear.

        A name that does not resolve here passes (the worker resolves and checks it again when it connects).
        """
        self.host_rules.check_url(url, resolver, unresolved_ok=True)

    def checked_addresses(
        self, host: str, port: int, resolver: Resolver = resolve, unresolved_ok: bool = False
    ) -> list[IPAddress]:
        """The addresses of an allowed ``host``, every one of them allowed; RefusedRequest otherwise."""
        return self.host_rules.checked_addresses(host, port, resolver, unresolved_ok)


def http_client(rules: ApiRules | None, timeout: float, resolver: Resolver = resolve):
    """An httpx2 client for the OpenAI SDK that never follows redirects (``core.egress.checked_http_client``).

    With ``rules``, each connection goes to an address of an allowed host checked just before it
    connects, and proxy variables are ignored (the connection must go where it was checked).
    """
    return checked_http_client(None if rules is None else rules.host_rules, timeout, resolver)


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
