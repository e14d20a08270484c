import json
import math

from django.core.management.base import BaseCommand, CommandError, CommandParser

from annotation.analysis.agreement import agreement_table
from annotation.models import Campaign
from annotation.reports.analysis_data import campaign_ratings


def _clean(value):
    return None if isinstance(value, float) and math.isnan(value) else value


class Command(BaseCommand):
    help = "Krippendorff's alpha of a campaign per question, level and procedure, with bootstrap intervals."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--campaign", required=True, help="Campaign id or slug.")
        parser.add_argument("--format", choices=["json", "text"], default="text", help="text (default) or json.")
        parser.add_argument("--levels", default="interval,ordinal", help="Comma-separated: interval, ordinal, nominal.")
        parser.add_argument("--resamples", type=int, default=1000, help="Bootstrap resamples (0: no interval).")
        parser.add_argument("--seed", type=int, default=0, help="Seed of the bootstrap resamples (default 0).")
        parser.add_argument("--exclude-simulated", action="store_true", help="Leave out simulated annotators.")

    def handle(self, *args, **options) -> None:
        key = options["campaign"]
        campaign = Campaign.objects.filter(**({"pk": int(key)} if key.isdigit() else {"slug": key})).first()
        if campaign is None:
            raise CommandError(f"no campaign {key!r}")
        levels = [level.strip() for level in options["levels"].split(",") if level.strip()]
        unknown = set(levels) - {"interval", "ordinal", "nominal"}
        if unknown:
            raise CommandError(f"--levels: unknown level(s) {', '.join(sorted(unknown))}")
        ratings = campaign_ratings(campaign.pk, include_simulated=not options["exclude_simulated"])
        if ratings.empty:
            raise CommandError(f"campaign {campaign.slug!r} has no ratings yet")
        rows = [
            {k: _clean(x) for k, x in row.items()}
            for row in agreement_table(ratings, levels=levels, n_resamples=options["resamples"], seed=options["seed"])
        ]
        report = {
            "campaign": {"id": campaign.pk, "slug": campaign.slug, "level": campaign.level},
            "ratings": int(len(ratings)),
            "annotators": int(ratings["annotator"].nunique()),
            "simulated_included": not options["exclude_simulated"],
            "resamples": options["resamples"],
            "seed": options["seed"],
            "rows": rows,
        }
        if options["format"] == "json":
            self.stdout.write(json.dumps(report, indent=2))
            return
        self.stdout.write(f"{campaign.slug}: {report['ratings']} ratings by {report['annotators']} annotators")
        for row in rows:
            interval = f"[{row['low']:.3f}, {row['high']:.3f}]" if row["low"] is not None else ""
            alpha = f"{row['alpha']:.3f}" if row["alpha"] is not None else "n/a"
            self.stdout.write(
                f"  {row['question']:<15} {row['level']:<9} {row['procedure']:<5} alpha {alpha} {interval}"
                f"  items {row['n_items']}  annotators {row['n_annotators']}"
            )
