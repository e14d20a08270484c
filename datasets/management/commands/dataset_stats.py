import json

from django.core.management.base import BaseCommand, CommandError, CommandParser

from datasets.models import Collection
from datasets.stats import dataset_stats


class Command(BaseCommand):
    help = "Count compounds, sentences (and unavailable ones), variants and paraphrases per language."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--format", choices=["json", "text"], default="text", help="text (default) or json.")
        parser.add_argument("--collection", help="Only this collection (default: all).")

    def handle(self, *args, **options) -> None:
        if options["collection"] and not Collection.objects.filter(slug=options["collection"]).exists():
            raise CommandError(f"no collection {options['collection']!r}")
        stats = dataset_stats(options["collection"])
        if options["format"] == "json":
            self.stdout.write(json.dumps(stats, indent=2))
            return
        if not stats["languages"]:
            self.stdout.write("The database holds no compounds yet (try: python manage.py load_demo).")
        for language, counts in stats["languages"].items():
            self.stdout.write(f"{language}: " + ", ".join(f"{k} {v}" for k, v in counts.items()))
