from django.core.management.base import BaseCommand, CommandError, CommandParser

from annotation.actions import simulate_ratings
from annotation.models import Campaign


class Command(BaseCommand):
    help = "Fill a campaign with SIMULATED ratings (for demos and tests; annotators are flagged simulated)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("campaign", nargs="+", help="Campaign slug(s).")
        parser.add_argument("--annotators", type=int, default=8, help="Simulated annotators (default 8).")
        parser.add_argument("--seed", type=int, default=0, help="Seed of the simulated answers (default 0).")
        parser.add_argument("--leave-room", type=int, default=2, help="Ratings per item left for people.")

    def handle(self, *args, **options) -> None:
        for slug in options["campaign"]:
            campaign = Campaign.objects.filter(slug=slug).first()
            if campaign is None:
                raise CommandError(f"no campaign {slug!r}")
            stored = simulate_ratings(campaign, options["annotators"], options["seed"], options["leave_room"])
            self.stdout.write(f"{slug}: {stored} simulated ratings stored")
