"""What every import command shares: --dry-run, --json, one-line errors, the summary."""

from __future__ import annotations

import json
from pathlib import Path

from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.core.validators import validate_slug

from datasets.formats.records import InputError, ParseResult
from datasets.importing import DEFAULT_COLLECTION, import_records


class ImportCommand(BaseCommand):
    importer = ""
    default_collection = DEFAULT_COLLECTION

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--dry-run", action="store_true", help="Read and check everything, write nothing.")
        parser.add_argument("--json", action="store_true", help="Print the summary as JSON.")
        parser.add_argument(
            "--collection",
            default=self.default_collection,
            help=f"Collection (namespace) to import into (default: {self.default_collection}).",
        )

    def parse(self, directory: Path, options: dict) -> ParseResult:
        raise NotImplementedError(f"{type(self).__name__} must implement parse()")

    def handle(self, *args, **options) -> None:
        try:
            validate_slug(options["collection"])
        except ValidationError:
            raise CommandError(f"--collection {options['collection']!r}: use letters, digits, - and _ only") from None
        directory = Path(options["directory"]).expanduser()
        if not directory.exists():
            raise CommandError(f"{directory}: no such file or directory")
        try:
            result = self.parse(directory, options)
            summary = import_records(
                result,
                importer=self.importer,
                source_dir=str(directory.resolve()),
                collection=options["collection"],
                options={k: options[k] for k in ("language", "languages") if options.get(k)},
                dry_run=options["dry_run"],
            )
        except InputError as exc:
            for problem in exc.problems[1:20]:
                self.stderr.write(f"  {problem}")
            raise CommandError(f"{self.importer}: nothing imported: {exc}") from None
        if options["json"]:
            self.stdout.write(json.dumps(summary.as_dict(), indent=2, ensure_ascii=False))
        else:
            detail = 10**6 if options["verbosity"] >= 2 else 20
            self.stdout.write("\n".join(summary.lines(detail=detail)))


class MultiLanguageImportCommand(ImportCommand):
    """An importer whose folder holds several languages (NCTTI, NCS): all, or --languages."""

    dataset_format = None  # a datasets.formats module with parse_directory(directory, languages)
    directory_help = ""

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("directory", help=self.directory_help)
        parser.add_argument("--languages", help="Comma-separated subset, e.g. en,pt (default: all found).")
        super().add_arguments(parser)

    def parse(self, directory: Path, options: dict) -> ParseResult:
        languages = [x.strip() for x in options["languages"].split(",")] if options.get("languages") else None
        return self.dataset_format.parse_directory(directory, languages)
