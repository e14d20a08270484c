import json

from django.core.management.base import BaseCommand, CommandError, CommandParser

from annotation import planning
from annotation.models import Campaign
from datasets.models import Collection


class Command(BaseCommand):
    help = (
        "Simulate fixed-N and adaptive designs of a rating study (seeded): ratings and cost, the error of item "
        "means, the expected alpha, the power to detect a correlation. From a campaign's ratings (a pilot) or a "
        "collection's published means. Reads only."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("campaign", nargs="?", help="A campaign whose ratings are the pilot.")
        parser.add_argument("--collection", help="Plan from this collection's published means instead (slug).")
        parser.add_argument("--language", help="With --collection: the compounds' language.")
        parser.add_argument("--fixed", default="3,5,10", help='Fixed designs, ratings per item (default "3,5,10").')
        parser.add_argument("--adaptive", default="3-10:1.5", help='Adaptive designs "n_min-n_max:precision,...".')
        parser.add_argument("--budget", type=int, help="Ratings the adaptive designs may spend.")
        parser.add_argument(
            "--careless", type=float, help="Share of random answers (default: 0 for a pilot, 0.1 for published means)."
        )
        parser.add_argument("--pay", type=float, default=0.0, help="Pay per rating, for the cost.")
        parser.add_argument("--r", type=float, default=0.3, help="Correlation whose power is computed (default 0.3).")
        parser.add_argument("--simulations", type=int, default=200, help="Simulated campaigns per design.")
        parser.add_argument("--seed", type=int, default=0, help="Seed of the simulated crowds (default 0).")
        parser.add_argument("--json", action="store_true", help="One JSON object instead of the table.")

    def handle(self, *args, **options) -> None:
        if options["careless"] is None:
            options["careless"] = planning.DEFAULT_CARELESS["published" if options["collection"] else "pilot"]
        try:
            designs = planning.parse_designs(options["fixed"], options["adaptive"], options["budget"])
            source = self._source(options)
            results = planning.run(
                source,
                designs,
                max_work=None,  # a terminal may wait
                careless=options["careless"],
                pay_per_rating=options["pay"],
                r=options["r"],
                simulations=options["simulations"],
                seed=options["seed"],
            )
        except planning.PlanError as error:
            raise CommandError(f"--{error.field}: {error}") from error
        except ValueError as error:
            raise CommandError(str(error)) from error
        if options["json"]:
            plan = {"source": source.description, "spread": source.spread, "designs": results, "options": options}
            self.stdout.write(json.dumps(plan, default=str))
            return
        self.stdout.write(f"{source.description}; {source.spread}; {options['careless']} random answers")
        self.stdout.write(f"{'design':<40} {'ratings':>9} {'cost':>9} {'MAE':>7} {'alpha':>7} {'power':>6}")
        for row in results:
            power = "-" if row["power"] is None else f"{row['power']:.2f}"
            alpha = "-" if row["alpha"]["mean"] is None else f"{row['alpha']['mean']:.3f}"
            self.stdout.write(
                f"{row['design']:<40} {row['ratings']['mean']:>9.0f} {row['cost']:>9.2f} "
                f"{row['mae']['mean']:>7.3f} {alpha:>7} {power:>6}"
            )

    def _source(self, options: dict) -> planning.Source:
        if options["collection"]:
            collection = Collection.objects.filter(slug=options["collection"]).first()
            if collection is None or not options["language"]:
                raise CommandError("--collection needs an existing collection's slug and --language")
            return planning.published(collection.pk, options["language"], options["careless"], options["seed"])
        campaign = Campaign.objects.filter(slug=options["campaign"] or "").first()
        if campaign is None:
            raise CommandError("give a campaign slug (its ratings are the pilot) or --collection and --language")
        return planning.pilot(campaign)
