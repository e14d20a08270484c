from pathlib import Path

from django.core.management.base import CommandParser

from datasets.formats import nctti
from datasets.formats.records import ParseResult
from datasets.management.importer import ImportCommand


class Command(ImportCommand):
    help = "Import NCTTI (data_<lang>.tsv + sentids_<lang>.csv) from DIR; every language found."
    importer = "import_nctti"

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("directory", help="Folder with data_en.tsv, sentids_en.csv, data_pt.tsv …")
        parser.add_argument("--languages", help="Comma-separated subset, e.g. en,pt (default: all found).")
        super().add_arguments(parser)

    def parse(self, directory: Path, options: dict) -> ParseResult:
        languages = [x.strip() for x in options["languages"].split(",")] if options.get("languages") else None
        return nctti.parse_directory(directory, languages)
