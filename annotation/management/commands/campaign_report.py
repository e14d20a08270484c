import json

from django.core.management.base import BaseCommand, CommandError, CommandParser

from annotation.models import Campaign, FilterPolicy
from annotation.reports.build import campaign_report


class Command(BaseCommand):
    help = "A campaign's report (agreement, reliability, policy, aggregates, paraphrases) as JSON."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--campaign", required=True, help="Campaign id or slug.")
        parser.add_argument("--policy", default="", help="Name of a saved filter policy (default: nobody removed).")
        parser.add_argument("--format", choices=["json"], default="json", help="json (the only format).")

    def handle(self, *args, **options) -> None:
        key = options["campaign"]
        campaign = Campaign.objects.filter(**({"pk": int(key)} if key.isdigit() else {"slug": key})).first()
        if campaign is None:
            raise CommandError(f"no campaign {key!r}")
        policy = None
        if options["policy"]:
            policy = FilterPolicy.objects.filter(name=options["policy"]).first()
            if policy is None:
                names = ", ".join(FilterPolicy.objects.values_list("name", flat=True))
                raise CommandError(f"no policy {options['policy']!r} (known: {names})")
        self.stdout.write(json.dumps(campaign_report(campaign, policy), indent=2))
