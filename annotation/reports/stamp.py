"""What a campaign's report depends on that workers and machine annotators change, in one short string."""

from __future__ import annotations

import hashlib

from django.db.models import Count, Max, Q

from annotation.models import Annotator, Campaign, MachineAnswer, Rating, Skip


def report_stamp(campaign: Campaign) -> str:
    """What the report depends on that workers change, in one short string: a live page compares it before reloading.

    The campaign's status, and for its ratings, skips and annotators their number and the latest
    change (a submission, a completion, a screen-out), and the machine annotators' answers; a policy or a curator's exclusion is the
    curator's own change, made on another page, after which the report is opened again anyway.
    """
    ratings = Rating.objects.filter(item__campaign=campaign).aggregate(
        n=Count("pk"), last=Max("pk"), submitted=Max("assignment__submitted_at")
    )
    skips = Skip.objects.filter(item__campaign=campaign).aggregate(n=Count("pk"), last=Max("pk"))
    people = Annotator.objects.filter(campaign=campaign).aggregate(
        n=Count("pk"), done=Count("completed_at"), out=Count("pk", filter=~Q(status=Annotator.Status.ACTIVE))
    )
    parts = [campaign.status, ratings["n"], ratings["last"], ratings["submitted"], skips["n"], skips["last"]]
    parts += [people["n"], people["done"], people["out"]]
    machines = MachineAnswer.objects.filter(item__campaign=campaign).aggregate(n=Count("pk"), last=Max("pk"))
    parts += [machines["n"], machines["last"]]
    return hashlib.sha256(repr(parts).encode()).hexdigest()[:16]
