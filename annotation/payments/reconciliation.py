"""Paying crowd workers: who is approved, rejected, reviewed, screened out or returned and why, in the platforms' files (pure).

- Prolific: approve; reject with one of Prolific's rejection categories and a message to the
  participant (the API wants at least 100 characters); review (flagged for a reason that does not
  justify a rejection, such as a low agreement with the others or many skipped items: the curator
  decides, and nothing is sent for them); screened out (paid the screening fee through a
  completion code of that kind, decided on Prolific); returned (no finished work). Prolific's
  guidance allows rejections for exceptionally fast completion, failed attention checks and clear
  low effort, and never for a screen-out: only those flags reject. A flagged worker is never
  approved here.
- MTurk: the batch results CSV goes back to the requester site with an ``x`` in ``Approve`` or the
  worker-facing reason in ``Reject``, one row per assignment (``HITId``, ``AssignmentId``, ``WorkerId``).
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from annotation.analysis.quality import ATTENTION_FAILED, SPEEDER, STRAIGHT_LINING, Flag

APPROVE, REJECT, REVIEW, SCREENED_OUT, RETURNED = "approve", "reject", "review", "screened out", "returned"
DECISIONS = (APPROVE, REJECT, REVIEW, SCREENED_OUT, RETURNED)
PROLIFIC, MTURK = "prolific", "mturk"
# Prolific's rejection categories for the flags that justify a rejection, most serious first.
REJECTION_CATEGORIES = {SPEEDER: "TOO_QUICKLY", ATTENTION_FAILED: "FAILED_CHECK", STRAIGHT_LINING: "LOW_EFFORT"}
EXPLANATIONS = {
    SPEEDER: "the items were answered faster than they can be read",
    ATTENTION_FAILED: "attention checks were failed",
    STRAIGHT_LINING: "nearly every item got the same answers",
}
MIN_MESSAGE = 100
AWAITING_REVIEW = "AWAITING REVIEW"
# Platform ids are letters, digits, - and _; anything else (a forged link) stays out of the platforms' files.
PLATFORM_ID = re.compile(r"[A-Za-z0-9_-]{1,100}")
PROLIFIC_CSV_COLUMNS = ["participant_id", "submission_id", "study_id", "status", "rejection_category", "message"]
MTURK_CSV_COLUMNS = ["HITId", "AssignmentId", "WorkerId", "Approve", "Reject"]
RECONCILIATION_COLUMNS = [
    "platform",
    "worker_id",
    "study_id",
    "session_id",
    "assignment_id",
    "status",
    "reason",
    "rejection_category",
    "message",
]


@dataclass(frozen=True)
class Worker:
    """What the decision needs to know about one worker of a campaign."""

    platform: str
    external_id: str
    study_id: str = ""
    session_id: str = ""  # Prolific: the submission id (SESSION_ID)
    assignment_id: str = ""  # MTurk
    completed: bool = False
    screened_out: bool = False
    screen_out_reason: str = "by the practice items"
    items_done: int = 0
    flags: tuple[Flag, ...] = ()


@dataclass(frozen=True)
class Decision:
    """Approve, reject, screened out or returned; why; and for rejections Prolific's category and the message."""

    worker: Worker
    status: str
    reason: str
    rejection_category: str = ""
    message: str = ""


def rejection_message(flags: Iterable[Flag]) -> str:
    """What the worker is told: every rejecting flag in words, with its numbers (always MIN_MESSAGE characters or more)."""
    because = "; ".join(f"{EXPLANATIONS[f.name]} ({f.reason})" for f in flags)
    return (
        f"Thank you for taking part. We cannot approve this submission because {because}. "
        "If you think this is a mistake, please send us a message."
    )


def decide(worker: Worker) -> Decision:
    """Screened out, else rejected for a flag that justifies it, else reviewed for any other flag, else
    approved once finished, else returned."""
    if worker.screened_out:
        return Decision(worker, SCREENED_OUT, f"screened out {worker.screen_out_reason}")
    rejecting = sorted(
        (f for f in worker.flags if f.name in REJECTION_CATEGORIES),
        key=lambda f: list(REJECTION_CATEGORIES).index(f.name),
    )
    if rejecting:
        return Decision(
            worker,
            REJECT,
            "; ".join(str(f) for f in rejecting),
            REJECTION_CATEGORIES[rejecting[0].name],
            rejection_message(rejecting),
        )
    rated = f"{worker.items_done} item{'s' if worker.items_done != 1 else ''} rated"
    if worker.flags:
        done = "completed" if worker.completed else "did not finish"
        flags = "; ".join(map(str, worker.flags))
        return Decision(worker, REVIEW, f"{done}: {rated}; flagged, decide before paying: {flags}")
    if worker.completed:
        return Decision(worker, APPROVE, f"completed: {rated}")
    return Decision(worker, RETURNED, f"did not finish: {rated}")


def valid_id(value: str) -> bool:
    return bool(PLATFORM_ID.fullmatch(value))


def _csv(rows: Iterable[dict], columns: list[str]) -> str:
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=columns, lineterminator="\r\n")
    writer.writeheader()
    writer.writerows(rows)
    return out.getvalue()


def prolific_decisions(decisions: Iterable[Decision]) -> list[Decision]:
    return [d for d in decisions if d.worker.platform == PROLIFIC and valid_id(d.worker.external_id)]


def prolific_approve_ids(decisions: Iterable[Decision]) -> str:
    """The Prolific ids to approve, one a line: what Prolific's bulk approval box takes."""
    ids = [d.worker.external_id for d in prolific_decisions(decisions) if d.status == APPROVE]
    return "".join(f"{pid}\n" for pid in ids)


def prolific_csv(decisions: Iterable[Decision]) -> str:
    """Every Prolific worker with participant id, submission id, study, what to do and the message for rejections."""
    rows = (
        {
            "participant_id": d.worker.external_id,
            "submission_id": d.worker.session_id if valid_id(d.worker.session_id) else "",
            "study_id": d.worker.study_id if valid_id(d.worker.study_id) else "",
            "status": d.status,
            "rejection_category": d.rejection_category,
            "message": d.message,
        }
        for d in prolific_decisions(decisions)
    )
    return _csv(rows, PROLIFIC_CSV_COLUMNS)


def mturk_csv(decisions: Iterable[Decision]) -> str:
    """MTurk's review columns for the assignments to approve or reject (screened-out workers are paid; those to
    review are left out, undecided, until the curator decides)."""
    rows = []
    for d in decisions:
        w = d.worker
        if w.platform != MTURK or d.status in (RETURNED, REVIEW):
            continue
        if not (valid_id(w.external_id) and valid_id(w.assignment_id)):
            continue
        rows.append(
            {
                "HITId": w.study_id if valid_id(w.study_id) else "",
                "AssignmentId": w.assignment_id,
                "WorkerId": w.external_id,
                "Approve": "" if d.status == REJECT else "x",
                "Reject": d.message if d.status == REJECT else "",
            }
        )
    return _csv(rows, MTURK_CSV_COLUMNS)


def reconciliation_csv(decisions: Iterable[Decision]) -> str:
    """Every worker of every platform with the decision and the reason (for the curator's records)."""
    rows = (
        {
            "platform": d.worker.platform,
            "worker_id": d.worker.external_id,
            "study_id": d.worker.study_id,
            "session_id": d.worker.session_id,
            "assignment_id": d.worker.assignment_id,
            "status": d.status,
            "reason": d.reason,
            "rejection_category": d.rejection_category,
            "message": d.message,
        }
        for d in decisions
    )
    return _csv((_safe(row) for row in rows), RECONCILIATION_COLUMNS)


def _safe(row: dict) -> dict:
    # Worker ids come from links anyone can forge: a spreadsheet must not run one as a formula.
    return {
        k: "'" + v if isinstance(v, str) and v.startswith(("=", "+", "-", "@", "\t", "\r")) else v
        for k, v in row.items()
    }


# Prolific's API: what to send for the submissions awaiting review.


@dataclass(frozen=True)
class Transition:
    """One POST to Prolific's /submissions/{id}/transition/."""

    submission_id: str
    participant_id: str
    action: str
    rejection_category: str = ""
    message: str = ""

    def body(self) -> dict:
        if self.action == "REJECT":
            return {"action": "REJECT", "rejection_category": self.rejection_category, "message": self.message}
        return {"action": self.action}


@dataclass
class Plan:
    """The transitions to send, and the submissions left alone with why."""

    transitions: list[Transition] = field(default_factory=list)
    left: list[dict] = field(default_factory=list)


def plan_transitions(submissions: Iterable[Mapping], decisions: Iterable[Decision]) -> Plan:
    """Approve or reject the submissions awaiting review that the campaign decided on; leave every other one."""
    prolific = prolific_decisions(decisions)
    by_session = {d.worker.session_id: d for d in prolific if d.worker.session_id}
    by_participant = {d.worker.external_id: d for d in prolific}
    plan = Plan()
    for submission in submissions:
        sid = str(submission.get("id", ""))
        pid = str(submission.get("participant_id") or submission.get("participant") or "")
        status = str(submission.get("status", ""))
        decision = by_session.get(sid) or by_participant.get(pid)
        why = None
        if decision is None:
            why = "not a worker of this campaign"
        elif status != AWAITING_REVIEW:
            why = f"{status.lower() or 'no status'} on Prolific"
        elif decision.status not in (APPROVE, REJECT):
            why = f"{decision.status}: {decision.reason} (decide on Prolific)"
        if why is not None:
            plan.left.append({"submission_id": sid, "participant_id": pid, "status": status, "why": why})
        elif decision.status == APPROVE:
            plan.transitions.append(Transition(sid, pid, "APPROVE"))
        else:
            plan.transitions.append(Transition(sid, pid, "REJECT", decision.rejection_category, decision.message))
    return plan
