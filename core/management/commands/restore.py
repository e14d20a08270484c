from pathlib import Path

from django.core.management.base import BaseCommand, CommandError, CommandParser

from core.backup import BackupError
from core.restore import restore


class Command(BaseCommand):
    help = (
        "Restore a backup made by manage.py backup into the configured database and default storage. "
        "Every checksum is verified first; the database must be empty unless --replace is given."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("source", type=Path, help="The backup's folder (the one holding backup.json).")
        parser.add_argument(
            "--replace",
            action="store_true",
            help="Drop every table, sequence and function of the database first, and overwrite stored files "
            "of the same names (files the backup lacks are kept).",
        )

    def handle(self, *args, **options) -> None:
        try:
            done = restore(options["source"], replace=options["replace"], stdout=self.stdout)
        except BackupError as error:
            raise CommandError(str(error)) from None
        manifest = done.manifest
        self.stdout.write(
            f"Restored database {manifest['database']['name']} of {manifest['created_at']} "
            f"(code {manifest['code_version']}) and {done.files} stored files"
        )
        if done.migrated:
            self.stdout.write(f"The backup was older than the code: applied {', '.join(done.migrated)}")
