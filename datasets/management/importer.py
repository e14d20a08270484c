"""What every import command shares: --dry-run, --json, one-line errors, the summary."""

from __future__ import annotations

import json
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError, CommandParser

from datasets.formats.records import InputError, ParseResult
from datasets.importing import import_records


class ImportCommand(BaseCommand):
    importer = ""

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--dry-run", action="store_true", help="Read and check everything, write nothing.")
        parser.add_argument("--json", action="store_true", help="Print the summary as JSON.")

    def parse(self, directory: Path, options: dict) -> ParseResult:
        raise NotImplementedError(f"{type(self).__name__} must implement parse()")

    def handle(self, *args, **options) -> None:
        directory = Path(options["directory"]).expanduser()
        if not directory.exists():
            raise CommandError(f"{directory}: no such directory")
        try:
            result = self.parse(directory, options)
            summary = import_records(
                result,
                importer=self.importer,
                source_dir=str(directory.resolve()),
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
