from pathlib import Path

from django.core.management.base import BaseCommand, CommandError, CommandParser

from core.backup import BackupError, backup


class Command(BaseCommand):
    help = (
        "Back up the instance into the new folder OUT: the PostgreSQL database (pg_dump), every file of the "
        "default storage and backup.json, their checksums. Restore it with manage.py restore."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("out", type=Path, help="A new or empty folder to write the backup into.")

    def handle(self, *args, **options) -> None:
        try:
            manifest = backup(options["out"])
        except BackupError as error:
            raise CommandError(str(error)) from None
        size = sum(entry["size"] for entry in manifest["files"])
        self.stdout.write(
            f"Backed up database {manifest['database']['name']} and {manifest['storage']['files']} stored files "
            f"({size} bytes) into {options['out']}"
        )
