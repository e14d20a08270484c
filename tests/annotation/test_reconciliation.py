"""Payment decisions and the platforms' files (annotation/payments/reconciliation.py, pure).

The files follow the platforms' documentation: Prolific's bulk approval takes a list of
participant ids; its API's transition takes APPROVE, or REJECT with a rejection category and a
message of at least 100 characters; MTurk's batch review upload is the results CSV with an "x" in
"Approve" or the reason in "Reject", one row per AssignmentId (with HITId and WorkerId).
"""

from __future__ import annotations

import csv
import io

from annotation.analysis.quality import ATTENTION_FAILED, LOW_AGREEMENT, SKIPPING, SPEEDER, STRAIGHT_LINING, Flag
from annotation.payments import reconciliation

FAST = Flag(SPEEDER, "median 0.2 s per item < 3 s")
SAME = Flag(STRAIGHT_LINING, "69 of 69 items answered 5/5/5 (100% ≥ 80%)")
CHECKS = Flag(ATTENTION_FAILED, "2 of 3 failed (more than 1)")
DISAGREES = Flag(LOW_AGREEMENT, "rho 0.06 with the others < 0.2")
SKIPS = Flag(SKIPPING, "23 of 24 items skipped (96% > 10%)")


def worker(name: str, platform: str = reconciliation.PROLIFIC, **fields) -> reconciliation.Worker:
    defaults = {"study_id": "study1", "session_id": f"sub-{name}", "completed": True, "items_done": 69}
    if platform == reconciliation.MTURK:
        defaults |= {"study_id": "HIT1", "session_id": "", "assignment_id": f"ASSIGN{name.upper()}"}
    return reconciliation.Worker(platform, name, **(defaults | fields))


def rows(text: str) -> list[dict]:
    return list(csv.DictReader(io.StringIO(text)))


def test_decisions_follow_prolifics_valid_reasons():
    assert reconciliation.decide(worker("ana")).status == reconciliation.APPROVE
    assert reconciliation.decide(worker("ana")).reason == "completed: 69 items rated"
    assert reconciliation.decide(worker("bo", screened_out=True, completed=False)).status == reconciliation.SCREENED_OUT
    returned = reconciliation.decide(worker("cy", completed=False, items_done=3))
    assert (returned.status, returned.reason) == (reconciliation.RETURNED, "did not finish: 3 items rated")

    speeder = reconciliation.decide(worker("dee", flags=(DISAGREES, FAST)))
    assert (speeder.status, speeder.rejection_category) == (reconciliation.REJECT, "TOO_QUICKLY")
    assert speeder.reason == "speeder (median 0.2 s per item < 3 s)"
    assert len(speeder.message) >= reconciliation.MIN_MESSAGE and "median 0.2 s per item" in speeder.message
    assert reconciliation.decide(worker("ed", flags=(CHECKS,))).rejection_category == "FAILED_CHECK"
    assert reconciliation.decide(worker("fi", flags=(SAME,))).rejection_category == "LOW_EFFORT"
    both = reconciliation.decide(worker("gus", flags=(SAME, FAST)))
    assert (
        both.rejection_category == "TOO_QUICKLY"
        and both.reason.startswith("speeder")
        and "straight-lining" in both.reason
    )

    # Disagreeing with the others, or skipping many items, is no reason to reject, nor to approve unseen: review.
    review = reconciliation.decide(worker("hal", flags=(DISAGREES,)))
    assert review.status == reconciliation.REVIEW and "low agreement (rho 0.06" in review.reason
    assert review.rejection_category == "" and review.message == ""
    skipper = reconciliation.decide(worker("hu", items_done=1, flags=(SKIPS,)))
    assert skipper.status == reconciliation.REVIEW and skipper.reason.startswith("completed: 1 item rated; flagged")
    # A screen-out is never a rejection, whatever the flags.
    assert reconciliation.decide(worker("ivy", screened_out=True, flags=(FAST,))).status == reconciliation.SCREENED_OUT


def test_prolific_files_list_participant_ids_and_what_to_do():
    decisions = [
        reconciliation.decide(worker("5f0c1e2a3b4c5d6e7f801234")),
        reconciliation.decide(worker("60aa11bb22cc33dd44ee55ff", flags=(FAST,))),
        reconciliation.decide(worker("61aa11bb22cc33dd44ee55ff", completed=False, screened_out=True)),
        reconciliation.decide(worker("=HYPERLINK(evil)")),
        reconciliation.decide(worker("A1B2C3", platform=reconciliation.MTURK)),
        reconciliation.decide(worker("62aa11bb22cc33dd44ee55ff", flags=(SKIPS,))),
    ]
    assert reconciliation.prolific_approve_ids(decisions) == "5f0c1e2a3b4c5d6e7f801234\n"
    text = reconciliation.prolific_csv(decisions)
    assert text.splitlines()[0] == "participant_id,submission_id,study_id,status,rejection_category,message"
    table = rows(text)
    assert [(row["participant_id"], row["status"], row["rejection_category"]) for row in table] == [
        ("5f0c1e2a3b4c5d6e7f801234", "approve", ""),
        ("60aa11bb22cc33dd44ee55ff", "reject", "TOO_QUICKLY"),
        ("61aa11bb22cc33dd44ee55ff", "screened out", ""),
        ("62aa11bb22cc33dd44ee55ff", "review", ""),
    ]
    assert table[1]["submission_id"] == "sub-60aa11bb22cc33dd44ee55ff" and table[1]["study_id"] == "study1"
    assert len(table[1]["message"]) >= 100


def test_the_mturk_file_has_the_batch_review_columns():
    decisions = [
        reconciliation.decide(worker("A1")),
        reconciliation.decide(worker("A1", platform=reconciliation.MTURK)),
        reconciliation.decide(worker("A2", platform=reconciliation.MTURK, flags=(CHECKS,))),
        reconciliation.decide(worker("A3", platform=reconciliation.MTURK, completed=False)),
        reconciliation.decide(worker("A4", platform=reconciliation.MTURK, completed=False, screened_out=True)),
        reconciliation.decide(worker("A5", platform=reconciliation.MTURK, assignment_id="")),
        reconciliation.decide(worker("A6", platform=reconciliation.MTURK, flags=(SKIPS,))),  # to review: left out
    ]
    text = reconciliation.mturk_csv(decisions)
    assert text.splitlines()[0] == "HITId,AssignmentId,WorkerId,Approve,Reject"
    table = rows(text)
    assert [(row["WorkerId"], row["AssignmentId"], row["HITId"], row["Approve"]) for row in table] == [
        ("A1", "ASSIGNA1", "HIT1", "x"),
        ("A2", "ASSIGNA2", "HIT1", ""),
        ("A4", "ASSIGNA4", "HIT1", "x"),
    ]
    assert table[0]["Reject"] == "" and "attention checks were failed (2 of 3 failed" in table[1]["Reject"]


def test_the_reconciliation_file_has_everyone_and_is_safe_in_a_spreadsheet():
    decisions = [
        reconciliation.decide(worker("=HYPERLINK(evil)")),
        reconciliation.decide(worker("A3", platform=reconciliation.MTURK, completed=False)),
    ]
    table = rows(reconciliation.reconciliation_csv(decisions))
    assert [row["worker_id"] for row in table] == ["'=HYPERLINK(evil)", "A3"]
    assert [row["status"] for row in table] == ["approve", "returned"]
    assert list(table[0]) == reconciliation.RECONCILIATION_COLUMNS


def test_only_submissions_awaiting_review_are_transitioned():
    decisions = [
        reconciliation.decide(worker("p1")),
        reconciliation.decide(worker("p2", flags=(FAST,))),
        reconciliation.decide(worker("p3", screened_out=True)),
        reconciliation.decide(worker("p4")),
        reconciliation.decide(worker("p5", session_id="")),
    ]
    submissions = [
        {"id": "sub-p1", "participant_id": "p1", "status": "AWAITING REVIEW"},
        {"id": "sub-p2", "participant_id": "p2", "status": "AWAITING REVIEW"},
        {"id": "sub-p3", "participant_id": "p3", "status": "AWAITING REVIEW"},
        {"id": "sub-p4", "participant_id": "p4", "status": "APPROVED"},
        {"id": "other", "participant": "p5", "status": "AWAITING REVIEW"},
        {"id": "sub-x", "participant_id": "stranger", "status": "AWAITING REVIEW"},
    ]
    plan = reconciliation.plan_transitions(submissions, decisions)
    assert [t.body() for t in plan.transitions] == [
        {"action": "APPROVE"},
        {"action": "REJECT", "rejection_category": "TOO_QUICKLY", "message": decisions[1].message},
        {"action": "APPROVE"},
    ]
    assert [t.submission_id for t in plan.transitions] == ["sub-p1", "sub-p2", "other"]
    assert {left["participant_id"]: left["why"] for left in plan.left} == {
        "p3": "screened out: screened out by the practice items (decide on Prolific)",
        "p4": "approved on Prolific",
        "stranger": "not a worker of this campaign",
    }
