"""Published releases of the dataset: a semantic version, its files, and the guarantees that they never change.

A release is built completely when it is created (``releases.actions``): its files are
generated from a snapshot and stored here with their checksums, as a draft or published directly.
Publishing freezes it. Three locks keep a published release as it was:

1. ``save()`` and ``delete()`` raise ``ReleaseFrozen`` (for the release and each of its files);
2. database triggers (datasets/migrations/0005_release_triggers.py) refuse UPDATE/DELETE of a
   published release row and any INSERT/UPDATE/DELETE of its files, which catches
   ``QuerySet.update()``/``delete()`` and raw SQL;
3. ``Release.verified_files()`` re-hashes every file against the manifest on every read, so a
   row changed behind the triggers' back is reported rather than served.

Both models were made by the ``datasets`` app and moved here (releases/migrations/0001_initial.py);
their tables keep the names ``datasets_release`` and ``datasets_releasefile`` for good: the rows,
and the triggers that guard them, stay where they are.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Collection

from django.conf import settings
from django.core.exceptions import PermissionDenied
from django.core.validators import RegexValidator
from django.db import models

from core.models import JobRecord, JobStatus
from releases.formats import ReleaseIntegrityError, verify_files

SEMVER = re.compile(r"^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)$")
semver_validator = RegexValidator(SEMVER, "Use a semantic version MAJOR.MINOR.PATCH, such as 1.0.0.")
MANIFEST = "manifest.json"
ZIP_NAME = "release.zip"


def sha256_hex(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def version_key(version: str) -> tuple[int, int, int]:
    """(major, minor, patch): "1.10.0" sorts after "1.9.0"."""
    match = SEMVER.match(version)
    if match is None:
        raise ValueError(f"{version!r} is not a semantic version MAJOR.MINOR.PATCH")
    return tuple(int(part) for part in match.groups())


def next_version(versions: list[str]) -> str:
    """The version a new release should take: the next minor of the highest (1.0.0 without any)."""
    known = [version_key(v) for v in versions if SEMVER.match(v)]
    if not known:
        return "1.0.0"
    major, minor, _ = max(known)
    return f"{major}.{minor + 1}.0"


class ReleaseError(ValueError):
    """A release that cannot be made, published, exported or imported as asked; the message says why."""


class ReleaseFrozen(PermissionDenied):
    """A published release (or one of its files) was about to change.

    A PermissionDenied, so that a view or API endpoint reaching it answers 403 rather than 500.
    """


class ReleaseQuerySet(models.QuerySet):
    def published(self) -> ReleaseQuerySet:
        return self.filter(status=Release.Status.PUBLISHED)

    def drafts(self) -> ReleaseQuerySet:
        return self.filter(status=Release.Status.DRAFT)

    def named(self, version: str) -> Release:
        """Release ``version``; ReleaseError naming the versions there are when there is none."""
        release = self.filter(version=version).first()
        if release is None:
            known = ", ".join(self.order_by("created_at").values_list("version", flat=True)) or "none"
            raise ReleaseError(f"no release {version} (releases: {known})")
        return release

    def current(self) -> Release | None:
        """The published release with the highest version (semantic order, not string order)."""
        releases = list(self.published().defer("manifest"))
        return max(releases, key=lambda r: version_key(r.version), default=None)


# What a release says about itself, as the admin and the API show it (both read this list).
RELEASE_FIELDS = (
    "version",
    "title",
    "description",
    "licence",
    "citation",
    "languages",
    "status",
    "scores",
    "counts",
    "checksum",
    "zip_sha256",
    "creators",
    "intended_use",
    "limitations",
    "biases",
    "doi",
    "created_by",
    "created_at",
    "published_by",
    "published_at",
)


class Release(models.Model):
    """A named, immutable version of the dataset in one or more languages."""

    class Status(models.TextChoices):
        DRAFT = "draft", "Draft"
        PUBLISHED = "published", "Published"

    version = models.CharField(max_length=32, unique=True, validators=[semver_validator])
    title = models.CharField(max_length=200, blank=True)
    description = models.TextField(blank=True)
    # An SPDX identifier, as releases.formats.meta links them (CC BY 4.0).
    licence = models.CharField(max_length=100, default="CC-BY-4.0")
    citation = models.TextField(blank=True)
    creators = models.JSONField(
        default=list, blank=True, help_text="Authors as deposits name them: [{name, affiliation, orcid}]."
    )
    intended_use = models.TextField(blank=True, help_text="The curator's words on what the release is for.")
    limitations = models.TextField(blank=True, help_text="The curator's words on what it cannot tell.")
    biases = models.TextField(blank=True, help_text="The curator's words on its known biases.")
    languages = models.JSONField(default=list, help_text="Language codes, sorted.")
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.DRAFT, db_index=True)
    scores = models.JSONField(default=dict, help_text="Where the scores come from (ScoreInfo).")
    counts = models.JSONField(default=dict, help_text="Per language: compounds, classes, sentences, variants.")
    manifest = models.JSONField(default=dict, help_text="manifest.json, parsed.")
    checksum = models.CharField(max_length=64, blank=True, help_text="sha256 of the manifest.json bytes.")
    zip_sha256 = models.CharField(max_length=64, blank=True)
    # PROTECT: deleting the account would have to rewrite a published row, which the triggers refuse.
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    published_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    published_at = models.DateTimeField(null=True, blank=True)

    objects = ReleaseQuerySet.as_manager()

    class Meta:
        db_table = "datasets_release"  # made by the datasets app; the triggers guard this table
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return f"{self.version} ({self.status})"

    def save(self, *args, **kwargs) -> None:
        # The stored status decides: the draft -> published save itself goes through.
        if self._stored_status() == self.Status.PUBLISHED:
            raise ReleaseFrozen(f"release {self.version} is published and cannot change: publish a new version")
        super().save(*args, **kwargs)

    def delete(self, *args, **kwargs):
        if self._stored_status() == self.Status.PUBLISHED:
            raise ReleaseFrozen(f"release {self.version} is published and cannot be deleted")
        return super().delete(*args, **kwargs)

    @property
    def doi(self) -> str:
        """The DOI a repository gave this release's deposit, once a curator entered it ("" before)."""
        record = getattr(self, "doi_record", None)
        return record.doi if record is not None else ""

    @property
    def is_published(self) -> bool:
        return self.status == self.Status.PUBLISHED

    def _stored_status(self) -> str | None:
        if self.pk is None:
            return None
        return Release.objects.filter(pk=self.pk).values_list("status", flat=True).first()

    def verified_files(self, include_zip: bool = False, only: Collection[str] | None = None) -> dict[str, bytes]:
        """Every file (manifest.json included) after checking it against the manifest; ReleaseIntegrityError if not.

        Each content must hash to its row's sha256 and to the manifest's; manifest.json must hash
        to ``checksum`` and equal ``manifest``; the zip, when asked for, must hash to ``zip_sha256``.
        ``only``: just these files and manifest.json, each checked the same way, the others neither
        read nor hashed (a probe run reads three files of a release: ``probing.run.loading``).
        """
        rows = self.files.order_by("path")
        if only is not None:
            rows = rows.filter(path__in=[*only, MANIFEST])
        if not include_zip:
            rows = rows.exclude(path=ZIP_NAME)  # the largest file: read only when asked for
        files: dict[str, bytes] = {}
        for path, sha256, size, content in rows.values_list("path", "sha256", "size", "content"):
            data = bytes(content)
            if sha256_hex(data) != sha256 or len(data) != size:
                raise ReleaseIntegrityError(
                    [f"release {self.version}: stored file {path} does not match its recorded sha256 {sha256[:12]}…"]
                )
            files[path] = data
        if MANIFEST not in files:
            raise ReleaseIntegrityError([f"release {self.version}: {MANIFEST} is missing"])
        if sha256_hex(files[MANIFEST]) != self.checksum:
            raise ReleaseIntegrityError(
                [f"release {self.version}: {MANIFEST} does not match the release checksum {self.checksum[:12]}…"]
            )
        if json.loads(files[MANIFEST]) != self.manifest:
            raise ReleaseIntegrityError([f"release {self.version}: the recorded manifest differs from {MANIFEST}"])
        zipped = files.pop(ZIP_NAME, None)
        try:
            verify_files(files, only=only)
        except ReleaseIntegrityError as exc:
            raise ReleaseIntegrityError([f"release {self.version}: {problem}" for problem in exc.problems]) from None
        if include_zip:
            if zipped is None or sha256_hex(zipped) != self.zip_sha256:
                raise ReleaseIntegrityError([f"release {self.version}: {ZIP_NAME} does not match its sha256"])
            files[ZIP_NAME] = zipped
        return files


class ReleaseFile(models.Model):
    """One file of a release (data, README, datapackage.json, manifest.json, the zip) with its checksum."""

    release = models.ForeignKey(Release, on_delete=models.CASCADE, related_name="files")
    path = models.CharField(max_length=300, help_text="Relative path inside the release, with / separators.")
    sha256 = models.CharField(max_length=64)
    size = models.PositiveBigIntegerField()
    media_type = models.CharField(max_length=100, blank=True)
    content = models.BinaryField()

    class Meta:
        db_table = "datasets_releasefile"  # made by the datasets app; the triggers guard this table
        ordering = ["release", "path"]
        constraints = [models.UniqueConstraint(fields=["release", "path"], name="release_file_unique_path")]

    def __str__(self) -> str:
        return f"{self.path} ({self.sha256[:12]})"

    def save(self, *args, **kwargs) -> None:
        if self._touches_published():
            raise ReleaseFrozen(f"{self.path}: the files of a published release cannot change")
        super().save(*args, **kwargs)

    def delete(self, *args, **kwargs):
        if self._touches_published():
            raise ReleaseFrozen(f"{self.path}: the files of a published release cannot be deleted")
        return super().delete(*args, **kwargs)

    def _touches_published(self) -> bool:
        release_ids = {self.release_id}
        if self.pk is not None:
            release_ids |= set(ReleaseFile.objects.filter(pk=self.pk).values_list("release_id", flat=True))
        return Release.objects.filter(pk__in=release_ids, status=Release.Status.PUBLISHED).exists()


class ReleaseJob(JobRecord):
    """A release being built by a Celery worker, for the release form: it answers at once, the worker builds.

    Building a release of the full public data takes seconds (the snapshot, every format, the zip);
    the form checks the request (``releases.collect.check_request``), records the job and hands it
    to a worker (``releases.tasks``); the job page polls until the release exists, then opens it.
    ``options`` holds the ``create_release`` keyword arguments; ``version`` names the release made.
    """

    Status = JobStatus

    options = models.JSONField(default=dict, help_text="The create_release keyword arguments of the form.")
    publish_next = models.BooleanField(default=False, help_text="Ask to publish once built (the confirmation page).")
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.QUEUED, db_index=True)
    message = models.TextField(blank=True, help_text="Why it failed: the release error, as the form would show it.")
    version = models.CharField(max_length=32)

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"release {self.version} job #{self.pk} ({self.status})"


class ReleaseDOI(models.Model):
    """The DOI of a release's deposit, entered after the deposit, with the metadata files that name it.

    The release's files never change: its data files, checksums and zip stay as they were made. The
    DOI lives in the metadata files only (card, Data Package, Croissant, CITATION.cff, the deposit
    metadata, the Hub card), which are built again with the DOI and kept here with a manifest that
    lists the unchanged data files beside them (its entries say which role each file has). Readers get
    the release's files with these in place (``releases.doi.files_with_doi``). A DOI is entered once.
    """

    release = models.OneToOneField(Release, on_delete=models.CASCADE, related_name="doi_record")
    doi = models.CharField(max_length=200, unique=True)
    previous_doi = models.CharField(max_length=200, blank=True, help_text="The DOI of the version before it.")
    recorded_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    recorded_at = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return f"{self.release.version}: doi:{self.doi}"


class ReleaseDOIFile(models.Model):
    """A metadata file of a release rebuilt with its DOI (the manifest and the zip among them)."""

    record = models.ForeignKey(ReleaseDOI, on_delete=models.CASCADE, related_name="files")
    path = models.CharField(max_length=300)
    sha256 = models.CharField(max_length=64)
    size = models.PositiveBigIntegerField()
    content = models.BinaryField()

    class Meta:
        ordering = ["record", "path"]
        constraints = [models.UniqueConstraint(fields=["record", "path"], name="release_doi_file_unique_path")]

    def __str__(self) -> str:
        return f"{self.path} ({self.sha256[:12]})"
