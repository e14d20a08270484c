from django.core.management.base import BaseCommand, CommandError, CommandParser

from annotation.models import Campaign
from annotation.payments.decisions import reconcile_prolific
from annotation.payments.prolific import BASE_URL_ENV, TOKEN_ENV, ProlificClient, ProlificError


class Command(BaseCommand):
    help = (
        "Approve or reject a campaign's Prolific submissions awaiting review, as its payment decisions say. "
        f"A preview unless --send. The token comes from {TOKEN_ENV} (API address: {BASE_URL_ENV})."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--campaign", required=True, help="Campaign slug.")
        parser.add_argument(
            "--study", action="append", dest="studies", help="Prolific study id (default: the workers' studies)."
        )
        parser.add_argument("--send", action="store_true", help="Send the approvals and rejections to Prolific.")

    def handle(self, *args, **options) -> None:
        campaign = Campaign.objects.filter(slug=options["campaign"]).first()
        if campaign is None:
            raise CommandError(f"no campaign {options['campaign']!r}")
        try:
            results = reconcile_prolific(
                campaign, ProlificClient.from_environment(), options["studies"], send=options["send"]
            )
        except ProlificError as error:
            raise CommandError(str(error)) from None
        verb = "sent" if options["send"] else "to send (preview: give --send)"
        for result in results:
            self.stdout.write(f"study {result.study_id}: {len(result.transitions)} {verb}")
            for t in result.transitions:
                self.stdout.write(
                    f"  {t.action} {t.participant_id} ({t.submission_id}) {t.rejection_category}".rstrip()
                )
            for left in result.left:
                self.stdout.write(f"  left {left['participant_id']} ({left['submission_id']}): {left['why']}")
            for failed in result.failed:
                self.stdout.write(f"  FAILED {failed['submission_id']}: {failed['why']}")
        if any(result.failed for result in results):
            raise CommandError("some transitions failed (see above)")
