"""Import an exported release (folder or zip) after verifying every checksum."""

from __future__ import annotations

import json

from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.core.validators import validate_slug

from releases.import_actions import import_release
from releases.models import ReleaseError


class Command(BaseCommand):
    help = "Import a release folder or zip (checked against its manifest.json) into a collection."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("path", help="An exported release folder, or its zip.")
        parser.add_argument("--collection", help="Collection slug (default: release-MAJOR-MINOR-PATCH).")
        parser.add_argument("--json", action="store_true", help="Print the summary as JSON.")

    def handle(self, *args, **options) -> None:
        if options["collection"]:
            try:
                validate_slug(options["collection"])
            except ValidationError:
                raise CommandError(
                    f"--collection {options['collection']!r}: use letters, digits, - and _ only"
                ) from None
        try:
            imported = import_release(options["path"], collection=options["collection"])
        except ReleaseError as exc:
            raise CommandError(str(exc)) from None
        if options["json"]:
            data = {"version": imported.version, "collection": imported.collection, **imported.summary.as_dict()}
            if imported.machine_ratings_left_out is not None:
                data["machine_ratings_left_out"] = imported.machine_ratings_left_out
            self.stdout.write(json.dumps(data, indent=2, ensure_ascii=False))
            return
        self.stdout.write(f"release {imported.version} → collection {imported.collection}")
        self.stdout.write("\n".join(imported.summary.lines()))
        if imported.machine_ratings_left_out is not None:
            self.stdout.write(
                f"machine-made ratings: {imported.machine_ratings_left_out} left out (answers to the campaigns of "
                "the workbench that made the release; they are not imported)"
            )
