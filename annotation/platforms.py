"""Crowd platforms' conventions for starting and ending a study (pure: no Django).

- The study link a platform opens: Prolific fills ``{{%PROLIFIC_PID%}}``, ``{{%STUDY_ID%}}`` and
  ``{{%SESSION_ID%}}`` in the URL the researcher gives it; MTurk appends ``workerId``,
  ``assignmentId``, ``hitId`` and ``turkSubmitTo`` to an ExternalQuestion's URL by itself; a
  generic platform fills a ``worker_id`` of its own; a local account logs in and needs no id.

- Prolific: a study has completion codes, each with an action (approve, screened out, ...);
  a participant ends by opening ``https://app.prolific.com/submissions/complete?cc=CODE``.
  A study that is full asks the participant to return the submission (no code).
- MTurk (ExternalQuestion): the HIT ends when the worker's browser posts the assignment id
  (and any other fields, such as our ``screened_out`` flag) to ``<turkSubmitTo>/mturk/externalSubmit``;
  turkSubmitTo is one of MTurk's two hosts, passed in the task URL.
"""

from __future__ import annotations

from dataclasses import dataclass
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


@dataclass(frozen=True)
class StudyLink:
    """The link a platform is given, with what the researcher must know to set it up there."""

    platform: str
    label: str
    url: str
    note: str


def study_links(start_url: str) -> list[StudyLink]:
    """Every platform's study link to a campaign's start page (an absolute URL)."""
    return [
        StudyLink(
            "prolific",
            "Prolific",
            f"{start_url}?PROLIFIC_PID={{{{%PROLIFIC_PID%}}}}&STUDY_ID={{{{%STUDY_ID%}}}}&SESSION_ID={{{{%SESSION_ID%}}}}",
            'Paste it as the study URL and keep "URL parameters" on: Prolific fills the three placeholders.',
        ),
        StudyLink(
            "mturk",
            "MTurk (ExternalQuestion)",
            start_url,
            "The ExternalURL of the HIT: MTurk appends workerId, assignmentId, hitId and turkSubmitTo itself.",
        ),
        StudyLink(
            "generic",
            "Another platform",
            f"{start_url}?worker_id=WORKER_ID",
            "Replace WORKER_ID with the platform's placeholder for its participant's id.",
        ),
        StudyLink(
            "local",
            "Local accounts",
            start_url,
            "For people with an account here: they log in, then open it.",
        ),
    ]
