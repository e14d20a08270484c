from django.core.management.base import BaseCommand, CommandParser

from building.variants.gold_synonyms import derive_gold_synonyms


class Command(BaseCommand):
    help = "Set gold synonyms to the most frequent type-level paraphrase (curator picks and file values kept)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--collection", help="Only compounds of this collection (slug; default: all).")
        parser.add_argument("--language", help="Only compounds of this language (en, pt; default: all).")

    def handle(self, *args, **options) -> None:
        changed = derive_gold_synonyms(options["collection"], options["language"])
        self.stdout.write(f"{changed} gold synonyms set from paraphrases")
