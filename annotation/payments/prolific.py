"""A small client of Prolific's researcher API: list a study's submissions, approve or reject one (pure: no Django).

Prolific's API (https://docs.prolific.com/api-reference/submissions): requests carry
``Authorization: Token <token>``; ``GET submissions/?study=<id>`` pages through ``results`` with
``_links.next.href``; ``POST submissions/<id>/transition/`` takes ``{"action": "APPROVE"}`` or
``{"action": "REJECT", "rejection_category": ..., "message": ...}`` and ignores a repeat.

The token goes to the configured API origin only: the client never follows a redirect, refuses a
next-page link to any other host, and talks plain HTTP to a loopback address alone (a test server).
"""

from __future__ import annotations

import ipaddress
import json
import os
import re
import urllib.error
import urllib.request
from collections.abc import Mapping
from urllib.parse import quote, urlencode, urljoin, urlsplit

DEFAULT_BASE_URL = "https://api.prolific.com/api/v1/"
TOKEN_ENV = "PROLIFIC_API_TOKEN"
BASE_URL_ENV = "PROLIFIC_API_URL"
TIMEOUT = 30
MAX_PAGES = 1000
SUBMISSION_ID = re.compile(r"[A-Za-z0-9_-]{1,100}")


class ProlificError(RuntimeError):
    """A request Prolific refused or that was not sent; the message never holds the token."""


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, req, fp, code, msg, headers, newurl):
        # urllib would copy the Authorization header to wherever the redirect points.
        return None


def _origin(url: str) -> tuple[str, str, int | None]:
    parts = urlsplit(url)
    port = parts.port or {"https": 443, "http": 80}.get(parts.scheme)
    return parts.scheme, (parts.hostname or "").lower(), port


def _loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


class ProlificClient:
    """Prolific's submissions API at ``base_url`` with ``token``."""

    def __init__(self, token: str, base_url: str = DEFAULT_BASE_URL, timeout: float = TIMEOUT) -> None:
        if not token:
            raise ProlificError(f"no Prolific API token: set {TOKEN_ENV}")
        base_url = base_url if base_url.endswith("/") else base_url + "/"
        scheme, host, _ = _origin(base_url)
        if not host or scheme not in ("https", "http") or (scheme == "http" and not _loopback(host)):
            raise ProlificError(f"{BASE_URL_ENV} must be an https:// URL (plain http only to a loopback test server)")
        self._token = token
        self.base_url = base_url
        self.timeout = timeout
        handlers: list = [_NoRedirect()]
        if scheme == "http":
            handlers.append(urllib.request.ProxyHandler({}))  # a local test server is never reached through a proxy
        self._opener = urllib.request.build_opener(*handlers)

    def __repr__(self) -> str:
        return f"ProlificClient({self.base_url!r})"

    @classmethod
    def from_environment(cls, environ: Mapping[str, str] = os.environ) -> ProlificClient:
        """The client configured by PROLIFIC_API_TOKEN and, optionally, PROLIFIC_API_URL."""
        return cls(environ.get(TOKEN_ENV, ""), environ.get(BASE_URL_ENV) or DEFAULT_BASE_URL)

    def _request(self, method: str, url: str, body: dict | None = None) -> dict:
        if _origin(url) != _origin(self.base_url):
            raise ProlificError(f"refusing to send the Prolific token to {urlsplit(url).netloc or url!r}")
        data = json.dumps(body).encode() if body is not None else None
        request = urllib.request.Request(url, data=data, method=method)
        request.add_header("Authorization", f"Token {self._token}")
        request.add_header("Accept", "application/json")
        if data is not None:
            request.add_header("Content-Type", "application/json")
        try:
            with self._opener.open(request, timeout=self.timeout) as response:
                text = response.read().decode("utf-8")
        except urllib.error.HTTPError as error:
            detail = error.read(2000).decode("utf-8", "replace")
            raise ProlificError(f"{method} {urlsplit(url).path}: HTTP {error.code} {detail}".strip()) from None
        except (urllib.error.URLError, TimeoutError, OSError) as error:
            raise ProlificError(f"{method} {urlsplit(url).path}: {error}") from None
        return json.loads(text) if text.strip() else {}

    def submissions(self, study_id: str) -> list[dict]:
        """Every submission of the study (all pages)."""
        url: str | None = urljoin(self.base_url, "submissions/") + "?" + urlencode({"study": study_id})
        found: list[dict] = []
        for _ in range(MAX_PAGES):
            if not url:
                return found
            page = self._request("GET", url)
            found.extend(page.get("results", []))
            following = (page.get("_links") or {}).get("next") or {}
            url = urljoin(url, following["href"]) if following.get("href") else None
        raise ProlificError(f"more than {MAX_PAGES} pages of submissions")

    def transition(self, submission_id: str, body: dict) -> dict:
        """POST ``body`` ({"action": "APPROVE"} or a rejection) to the submission's transition endpoint."""
        if not SUBMISSION_ID.fullmatch(submission_id):
            raise ProlificError(f"not a submission id: {submission_id!r}")
        path = f"submissions/{quote(submission_id, safe='')}/transition/"
        return self._request("POST", urljoin(self.base_url, path), body)
