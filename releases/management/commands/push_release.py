"""Push a published release's hf/ folder to a dataset repository on the Hugging Face Hub (releases/hub.py)."""

from __future__ import annotations

import os

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser

from releases.formats import ReleaseIntegrityError
from releases.hub import ENDPOINT_SETTING, TOKEN_ENV, push_to_hub
from releases.models import Release, ReleaseError


class Command(BaseCommand):
    help = (
        "Push published release --release VERSION to the Hugging Face dataset repository --to-hub OWNER/NAME (created "
        f"when missing): its hf/ folder in one commit, with the token in {TOKEN_ENV}, to {ENDPOINT_SETTING}."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--release", required=True, dest="release_version", help="The published release to push, e.g. 1.0.0."
        )
        parser.add_argument(
            "--to-hub",
            required=True,
            dest="repo_id",
            metavar="OWNER/NAME",
            help=f"The dataset repository on the Hub ({ENDPOINT_SETTING}, a host listed in WORKBENCH_HUB_HOSTS), "
            "e.g. my-lab/idiomaticity.",
        )
        parser.add_argument(
            "--private", action="store_true", help="Create the repository private (when it does not exist yet)."
        )

    def handle(self, *args, **options) -> None:
        version = options["release_version"]
        try:
            release = Release.objects.named(version)
        except ReleaseError as exc:
            raise CommandError(str(exc)) from None
        try:
            url = push_to_hub(
                release,
                options["repo_id"],
                endpoint=settings.WORKBENCH_HUB_ENDPOINT,
                token=os.environ.get(TOKEN_ENV, ""),
                private=options["private"],
            )
        except ReleaseIntegrityError as exc:
            raise CommandError(f"release {version} failed its integrity check, nothing pushed: {exc}") from None
        except ReleaseError as exc:
            raise CommandError(str(exc)) from None
        self.stdout.write(f"release {release.version} → {options['repo_id']}: {url}")
