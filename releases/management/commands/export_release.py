"""Write a release's files, manifest.json and release.zip into a folder, each checked against the manifest;
or, with --format hf, only its Hugging Face folder; with --format deposit, what a Zenodo deposit uploads."""

from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError, CommandParser

from releases.actions import export_deposit, export_hf, export_release
from releases.formats import ReleaseIntegrityError
from releases.models import Release, ReleaseError

FORMATS = {"release": export_release, "hf": export_hf, "deposit": export_deposit}


class Command(BaseCommand):
    help = (
        "Export release --release VERSION into --out DIR (a new or empty folder): every file, manifest.json and "
        "release.zip; with --format hf its Hugging Face folder; with --format deposit its deposit bundle."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--release", required=True, dest="release_version", help="The version of the release to export, e.g. 1.0.0."
        )
        parser.add_argument("--out", required=True, help="Folder to write (created when missing).")
        parser.add_argument(
            "--format",
            choices=sorted(FORMATS),
            default="release",
            help="release (default): the whole release, checked against its manifest, and release.zip. hf: only its "
            "hf/ folder (README.md with the Hub's metadata, one Parquet file per config), for datasets.load_dataset "
            "or a push to the Hugging Face Hub. deposit: what a Zenodo (DataCite) deposit uploads: "
            "release-VERSION.zip, CITATION.cff and zenodo.json.",
        )

    def handle(self, *args, **options) -> None:
        version = options["release_version"]
        try:
            release = Release.objects.named(version)
        except ReleaseError as exc:
            raise CommandError(str(exc)) from None
        try:
            written = FORMATS[options["format"]](release, options["out"])
        except ReleaseIntegrityError as exc:
            raise CommandError(f"release {version} failed its integrity check, nothing exported: {exc}") from None
        except ReleaseError as exc:
            raise CommandError(str(exc)) from None
        self.stdout.write(f"release {release.version} ({release.status}) → {options['out']}")
        width = max(len(f["path"]) for f in written)
        for f in written:
            self.stdout.write(f"  {f['path']:<{width}}  {f['sha256']}  {f['size']:>9} bytes")
        manifest = next((f["sha256"] for f in written if f["path"] == "manifest.json"), release.checksum)
        self.stdout.write(f"checksum (sha256 of manifest.json): {manifest}")
        if manifest != release.checksum:
            self.stdout.write(
                f"  (with DOI {release.doi}; the release as published: {release.checksum}, its data files unchanged)"
            )
