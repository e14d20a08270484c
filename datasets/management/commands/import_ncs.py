from pathlib import Path

from django.core.management.base import CommandParser

from datasets.formats import ncs
from datasets.formats.records import ParseResult
from datasets.management.importer import ImportCommand


class Command(ImportCommand):
    help = "Import NCS neutral sentences from DIR/<lang>/neutral/P{1,2,3}_sents.csv; every language found."
    importer = "import_ncs"

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("directory", help="Folder with en/neutral/P1_sents.csv, pt/neutral/… .")
        parser.add_argument("--languages", help="Comma-separated subset, e.g. en,pt (default: all found).")
        super().add_arguments(parser)

    def parse(self, directory: Path, options: dict) -> ParseResult:
        languages = [x.strip() for x in options["languages"].split(",")] if options.get("languages") else None
        return ncs.parse_directory(directory, languages)
