from django.core.management.base import BaseCommand, CommandError, CommandParser

from annotation.models import Campaign
from annotation.payments.decisions import FILES, payment_file


class Command(BaseCommand):
    help = (
        "A campaign's payment decisions (approve / reject / review / screened out / returned, with the reason) as one of: "
        + ", ".join(FILES)
        + "."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--campaign", required=True, help="Campaign slug.")
        parser.add_argument(
            "--file", choices=list(FILES), default="reconciliation.csv", help="Which file (default reconciliation.csv)."
        )
        parser.add_argument("--output", help="Write here instead of standard output.")

    def handle(self, *args, **options) -> None:
        campaign = Campaign.objects.filter(slug=options["campaign"]).first()
        if campaign is None:
            raise CommandError(f"no campaign {options['campaign']!r}")
        _, text = payment_file(campaign, options["file"])
        if options["output"]:
            with open(options["output"], "w", encoding="utf-8", newline="") as out:
                out.write(text)
        else:
            self.stdout.write(text, ending="")
