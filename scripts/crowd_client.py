"""A crowd worker's browser, over plain HTTP: the study link, consent, instructions, then rating items.

Standard library only, so that it runs with any Python 3.11 against any deployment: the annotation
load benchmark (benchmarks/annotation_load.py) drives many of these at once, and the compose check
(scripts/compose_check.sh) runs it once from the host against the containers:

    python3 scripts/crowd_client.py http://127.0.0.1:8000 demo-token compose-check-1

enrols participant ``compose-check-1`` through the Prolific-style link, submits one rating of the
first item it is given and prints one JSON object (the item's token and the page that followed).
One connection is kept open (keep-alive, as a browser does) and cookies are sent back.
"""

from __future__ import annotations

import argparse
import http.client
import http.cookies
import json
import re
import urllib.parse

TOKEN = re.compile(r'name="token" value="([0-9a-f-]{36})"')
CSRF = re.compile(r'name="csrfmiddlewaretoken" value="([^"]+)"')


class CrowdClient:
    """One participant's session with a campaign ``slug`` served at ``base`` (``http://host:port``)."""

    def __init__(self, base: str, slug: str, timeout: float = 30) -> None:
        self.base, self.slug, self.timeout = base.rstrip("/"), slug, timeout
        self.connection: http.client.HTTPConnection | None = None  # kept alive between requests
        self.cookies: dict[str, str] = {}

    def request(self, url: str, data: dict | None = None) -> tuple[str, str]:
        """GET (or POST ``data``) and follow redirects: the final URL and its page; OSError on a 4xx/5xx."""
        for _ in range(5):
            parts = urllib.parse.urlsplit(url)
            body = urllib.parse.urlencode(data) if data is not None else None
            headers = {"Referer": url, "Cookie": "; ".join(f"{k}={v}" for k, v in self.cookies.items())}
            if body is not None:
                headers["Content-Type"] = "application/x-www-form-urlencoded"
            response = self.send("POST" if body is not None else "GET", parts, body, headers)
            for header in response.headers.get_all("Set-Cookie") or []:
                for name, morsel in http.cookies.SimpleCookie(header).items():
                    self.cookies[name] = morsel.value
            page = response.read().decode()
            if response.status in (301, 302, 303):
                url, data = urllib.parse.urljoin(url, response.headers["Location"]), None
                continue
            if response.status >= 400:
                raise OSError(f"HTTP {response.status} for {parts.path}")
            return url, page
        raise OSError(f"too many redirects from {url}")

    def send(self, method: str, parts, body: str | None, headers: dict) -> http.client.HTTPResponse:
        """One request on the kept connection; a connection the server closed (keep-alive ran out) is reopened once."""
        for attempt in range(2):
            if self.connection is None:
                self.connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=self.timeout)
            try:
                path = parts.path + (f"?{parts.query}" if parts.query else "")
                self.connection.request(method, path, body=body, headers=headers)
                return self.connection.getresponse()
            except (http.client.RemoteDisconnected, ConnectionResetError, BrokenPipeError):
                self.connection.close()
                self.connection = None
                if attempt:
                    raise
        raise AssertionError("unreachable")

    def enrol(self, participant: str, study: str, session: str) -> tuple[str, str]:
        """The study link, the consent form agreed to, the instructions passed: the first item's page."""
        query = urllib.parse.urlencode({"PROLIFIC_PID": participant, "STUDY_ID": study, "SESSION_ID": session})
        url, page = self.request(f"{self.base}/annotate/{self.slug}/start/?{query}")
        for _ in range(5):
            if url.endswith("/instructions/"):
                url, page = self.request(f"{self.base}/annotate/{self.slug}/")
            elif (url.endswith("/consent/") or "/start/" in url) and CSRF.search(page) is not None:
                # The study link shows the consent form; agreeing posts the link's ids back (enrolment).
                ids = dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(url).query))
                agreed = {"csrfmiddlewaretoken": csrf_token(page), "agree": "1", **ids}
                url, page = self.request(url.split("?")[0], agreed)
            else:
                break  # an item's page, or one without a form (the study is closed, full or done)
        return url, page

    def rate(self, page: str, scores: dict[str, str]) -> tuple[str, str]:
        """Submit ``scores`` (form fields: head_score, modifier_score, compound_score, paraphrase_1 ...)
        for the item on ``page``: the page that follows (the next item, or the end)."""
        answers = {"csrfmiddlewaretoken": csrf_token(page), "token": item_token(page), **scores}
        return self.request(f"{self.base}/annotate/{self.slug}/", answers)


def item_token(page: str) -> str | None:
    """The token of the item a rating page shows; None when the page shows no item (done, or full)."""
    found = TOKEN.search(page)
    return found.group(1) if found else None


def csrf_token(page: str) -> str:
    found = CSRF.search(page)
    if found is None:
        raise OSError("the page has no CSRF token (not a form page)")
    return found.group(1)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("base", help="the site, e.g. http://127.0.0.1:8000")
    parser.add_argument("slug", help="the campaign's slug, e.g. demo-token")
    parser.add_argument("participant", help="the Prolific participant id to enrol as")
    parser.add_argument("--study", default="compose-check", help="STUDY_ID of the link (default compose-check)")
    parser.add_argument("--session", default="1", help="SESSION_ID of the link (default 1)")
    args = parser.parse_args()
    client = CrowdClient(args.base, args.slug)
    url, page = client.enrol(args.participant, args.study, args.session)
    token = item_token(page)
    if token is None:
        raise SystemExit(f"no item to rate at {url}")
    scores = {"head_score": "4", "modifier_score": "3", "compound_score": "4", "paraphrase_1": "a check"}
    after, _ = client.rate(page, scores)
    print(json.dumps({"participant": args.participant, "item": token, "after": urllib.parse.urlsplit(after).path}))


if __name__ == "__main__":
    main()
