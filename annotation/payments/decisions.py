"""A campaign's payment decisions (``annotation.payments.reconciliation``) and their reconciliation with Prolific.

Reads the campaign only; Prolific hears from it only when a curator asks to send
(``reconcile_prolific(..., send=True)``), and Prolific's own transitions are idempotent.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from annotation.curate.dashboard import annotator_rows, ratings_frame
from annotation.models import Annotator, Campaign
from annotation.payments import reconciliation
from annotation.payments.prolific import ProlificClient, ProlificError

FILES = {
    "reconciliation.csv": ("text/csv; charset=utf-8", reconciliation.reconciliation_csv),
    "prolific-approve.txt": ("text/plain; charset=utf-8", reconciliation.prolific_approve_ids),
    "prolific.csv": ("text/csv; charset=utf-8", reconciliation.prolific_csv),
    "mturk.csv": ("text/csv; charset=utf-8", reconciliation.mturk_csv),
}
PAID_PLATFORMS = (Annotator.Platform.PROLIFIC, Annotator.Platform.MTURK, Annotator.Platform.GENERIC)


def workers(campaign: Campaign) -> list[reconciliation.Worker]:
    """The campaign's crowd workers (not local accounts, not simulated ones) with what decides their pay."""
    rows = {row.id: row for row in annotator_rows(campaign, ratings_frame(campaign))}
    annotators = Annotator.objects.filter(campaign=campaign, platform__in=PAID_PLATFORMS, simulated=False)
    result = []
    for annotator in annotators.order_by("created_at", "id"):
        row = rows[annotator.pk]
        result.append(
            reconciliation.Worker(
                platform=annotator.platform,
                external_id=annotator.external_id,
                study_id=annotator.study_id,
                session_id=annotator.session_id,
                assignment_id=annotator.assignment_id,
                completed=annotator.completed_at is not None,
                screened_out=annotator.status == Annotator.Status.SCREENED_OUT or annotator.training_passed is False,
                screen_out_reason=Annotator.ScreenOut(
                    annotator.screen_out_reason or Annotator.ScreenOut.PRACTICE
                ).label,
                items_done=row.items_done,
                flags=tuple(row.quality_flags),
            )
        )
    return result


def decisions(campaign: Campaign) -> list[reconciliation.Decision]:
    return [reconciliation.decide(worker) for worker in workers(campaign)]


def payment_file(campaign: Campaign, name: str) -> tuple[str, str]:
    """(content type, text) of one of ``FILES``."""
    content_type, render = FILES[name]
    return content_type, render(decisions(campaign))


def prolific_studies(campaign: Campaign) -> list[str]:
    """The Prolific study ids the campaign's workers came from."""
    ids = Annotator.objects.filter(campaign=campaign, platform=Annotator.Platform.PROLIFIC).exclude(study_id="")
    return sorted(s for s in set(ids.values_list("study_id", flat=True)) if reconciliation.valid_id(s))


@dataclass
class Reconciliation:
    """What happened to one study's submissions: sent (or, in a preview, to send), left alone, failed."""

    study_id: str
    sent: bool
    transitions: list[reconciliation.Transition] = field(default_factory=list)
    left: list[dict] = field(default_factory=list)
    failed: list[dict] = field(default_factory=list)


def reconcile_prolific(
    campaign: Campaign, client: ProlificClient, study_ids: list[str] | None = None, send: bool = False
) -> list[Reconciliation]:
    """Fetch each study's submissions and approve or reject those awaiting review as decided (only with ``send``)."""
    decided = decisions(campaign)
    results = []
    for study_id in study_ids or prolific_studies(campaign):
        plan = reconciliation.plan_transitions(client.submissions(study_id), decided)
        result = Reconciliation(study_id, send, left=plan.left)
        for transition in plan.transitions:
            if not send:
                result.transitions.append(transition)
                continue
            try:
                client.transition(transition.submission_id, transition.body())
            except ProlificError as error:
                result.failed.append({"submission_id": transition.submission_id, "why": str(error)})
            else:
                result.transitions.append(transition)
        results.append(result)
    return results
