from pathlib import Path

from django.core.management.base import CommandError, CommandParser

from datasets.formats import ncimp
from datasets.formats.records import ParseResult
from datasets.management.importer import ImportCommand
from datasets.models import language_code_validator


class Command(ImportCommand):
    help = "Import NCIMP minimal pairs from DIR (naturalistics_examplesent{1,2,3}.csv and/or neutral.csv)."
    importer = "import_ncimp"

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("directory", help="Folder with naturalistics_examplesent1.csv … and/or neutral.csv.")
        parser.add_argument("--language", required=True, help="Language of the files, e.g. pt or en.")
        super().add_arguments(parser)

    def parse(self, directory: Path, options: dict) -> ParseResult:
        language = options["language"].strip().lower()
        try:
            language_code_validator(language)
        except Exception:
            raise CommandError(f"--language {options['language']!r}: use an ISO 639 code such as en or pt") from None
        return ncimp.parse_directory(directory, language)
