from pathlib import Path

from django.core.management.base import CommandError, CommandParser

from datasets.formats import ncimp, ncimp_scores
from datasets.formats.records import ParseResult
from datasets.management.importer import ImportCommand
from datasets.models import language_code_validator


class Command(ImportCommand):
    help = (
        "Import NCIMP minimal pairs from DIR (naturalistics_examplesent{1,2,3}.csv and/or neutral.csv), with the "
        f"human scores of {ncimp_scores.SCORES_FILE} (--scores, or found in DIR or beside it)."
    )
    importer = "import_ncimp"

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("directory", help="Folder with naturalistics_examplesent1.csv … and/or neutral.csv.")
        parser.add_argument("--language", required=True, help="Language of the files, e.g. pt or en.")
        scores = parser.add_mutually_exclusive_group()
        scores.add_argument(
            "--scores",
            metavar="FILE",
            help=f"The human scores table (default: {ncimp_scores.SCORES_FILE} in DIR or its parent folder); "
            "its rows of --language give classes, type and token scores, synonym overlap and sentence lengths.",
        )
        scores.add_argument("--no-scores", action="store_true", help="Do not read a scores table found beside DIR.")
        super().add_arguments(parser)

    def parse(self, directory: Path, options: dict) -> ParseResult:
        language = options["language"].strip().lower()
        try:
            language_code_validator(language)
        except Exception:
            raise CommandError(f"--language {options['language']!r}: use an ISO 639 code such as en or pt") from None
        result = ParseResult()
        scores = self._scores_file(directory, options)
        if scores is not None:
            self.stderr.write(f"human scores: {scores}")
            # First, so that the NCIMP files stay the recorded source of the rows both name.
            result.extend(ncimp_scores.parse_scores_file(scores, language))
        result.extend(ncimp.parse_directory(directory, language))
        return result

    def _scores_file(self, directory: Path, options: dict) -> Path | None:
        if options.get("no_scores"):
            return None
        if options.get("scores"):
            path = Path(options["scores"]).expanduser()
            if not path.is_file():
                raise CommandError(f"--scores {options['scores']}: no such file")
            return path
        return ncimp_scores.find_scores_file(directory)
