"""Crowd platforms' conventions for ending a study (pure: no Django).

- Prolific: a study has completion codes, each with an action (approve, screened out, ...);
  a participant ends by opening ``https://app.prolific.com/submissions/complete?cc=CODE``.
  A study that is full asks the participant to return the submission (no code).
- MTurk (ExternalQuestion): the HIT ends when the worker's browser posts the assignment id
  (and any other fields, such as our ``screened_out`` flag) to ``<turkSubmitTo>/mturk/externalSubmit``;
  turkSubmitTo is one of MTurk's two hosts, passed in the task URL.
"""

from __future__ import annotations

from urllib.parse import quote, urlsplit

PROLIFIC_COMPLETE = "https://app.prolific.com/submissions/complete?cc="
MTURK_HOSTS = ("www.mturk.com", "workersandbox.mturk.com")
# MTurk shows an ExternalQuestion inside an iframe of its worker sites (and the requester's preview).
MTURK_FRAMERS = ("https://worker.mturk.com", "https://workersandbox.mturk.com", "https://www.mturk.com")


def prolific_completion_url(code: str) -> str:
    return PROLIFIC_COMPLETE + quote(code, safe="")


def mturk_submit_url(turk_submit_to: str) -> str | None:
    """MTurk's externalSubmit address for a turkSubmitTo parameter, or None unless it is one of MTurk's hosts."""
    parts = urlsplit(turk_submit_to.strip())
    if parts.scheme != "https" or parts.hostname not in MTURK_HOSTS or parts.port is not None:
        return None
    if parts.path not in ("", "/") or parts.query or parts.fragment or parts.username or parts.password:
        return None
    return f"https://{parts.hostname}/mturk/externalSubmit"


def origin(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}"
