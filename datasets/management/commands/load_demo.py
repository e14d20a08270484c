from pathlib import Path

from django.core.management.base import CommandParser

from datasets.formats import workbench_json
from datasets.formats.records import ParseResult
from datasets.management.importer import ImportCommand

DEMO_FILE = Path(__file__).resolve().parents[2] / "demo" / "demo.json"


class Command(ImportCommand):
    help = "Load the bundled demo dataset (24 English and 12 Portuguese compounds written by the team)."
    importer = "load_demo"
    default_collection = "demo"

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--file",
            dest="directory",
            default=str(DEMO_FILE),
            help="A dataset in the workbench JSON format (default: the bundled demo).",
        )
        super().add_arguments(parser)

    def parse(self, path: Path, options: dict) -> ParseResult:
        return workbench_json.parse_file(path, origin_label=f"demo/{path.name}" if path == DEMO_FILE else None)
