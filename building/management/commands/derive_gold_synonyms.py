from django.core.management.base import BaseCommand, CommandParser

from building.variants.gold_synonyms import derive_gold_synonyms


class Command(BaseCommand):
    help = "Set gold synonyms to the most frequent type-level paraphrase (curator picks and file values kept)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--collection")
        parser.add_argument("--language")

    def handle(self, *args, **options) -> None:
        changed = derive_gold_synonyms(options["collection"], options["language"])
        self.stdout.write(f"{changed} gold synonyms set from paraphrases")
