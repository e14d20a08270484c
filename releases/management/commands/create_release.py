"""Create a release from what is approved (or, for imported public data, what was imported)."""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError, CommandParser

from releases.actions import create_release
from releases.formats.machine import MACHINE_JSONL
from releases.models import Release, ReleaseError


def split(value: str | None) -> list[str] | None:
    items = [x.strip() for x in (value or "").split(",") if x.strip()]
    return items or None


class Command(BaseCommand):
    help = (
        "Build release --release VERSION from the database: compounds with scores, available sentences, approved "
        "(or imported) variants, paraphrases and, with --campaigns, agreement. A draft unless --publish."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--release",
            required=True,
            dest="release_version",
            help="The release's version, MAJOR.MINOR.PATCH (e.g. 1.0.0): a new one, or an existing draft to rebuild.",
        )
        parser.add_argument("--languages", help="Comma-separated, e.g. en,pt (default: every language found).")
        parser.add_argument("--collections", help="Comma-separated collection slugs (default: all).")
        parser.add_argument("--campaigns", help="Comma-separated campaign slugs whose ratings give the scores.")
        parser.add_argument(
            "--policy",
            help="Filter policy applied to the campaigns' annotators (by name; default: 'exclude flagged', "
            "which leaves out the workers the campaigns' quality thresholds flag; 'none' keeps everyone).",
        )
        parser.add_argument(
            "--machine-annotators",
            action="store_true",
            help="Carry the campaigns' machine-made ratings (language models' answers) too, in a table of their own "
            "labelled machine; they never enter the scores. Needs --campaigns.",
        )
        parser.add_argument("--title", default="", help="One line shown on the release's page and card.")
        parser.add_argument("--description", default="", help="What the release holds, for its page and card.")
        parser.add_argument("--citation", default="", help="How to cite the release (shown on its card).")
        parser.add_argument("--licence", default="", help="SPDX identifier (default: CC-BY-4.0).")
        parser.add_argument(
            "--creator",
            action="append",
            default=[],
            dest="creators",
            help="An author, as 'Name | affiliation | ORCID' (the last two optional); repeat for each.",
        )
        parser.add_argument("--intended-use", default="", help="What the release is for (the card's Responsible use).")
        parser.add_argument("--limitations", default="", help="What the release cannot tell (Responsible use).")
        parser.add_argument("--biases", default="", help="Known biases of its data (Responsible use).")
        parser.add_argument("--user", help="Username recorded as the creator (and publisher).")
        parser.add_argument("--publish", action="store_true", help="Publish at once: the release is then frozen.")
        parser.add_argument(
            "--exist-ok", action="store_true", help="If VERSION exists already, say so and leave it as it is."
        )

    def handle(self, *args, **options) -> None:
        user = None
        if options["user"]:
            user = get_user_model().objects.filter(username=options["user"]).first()
            if user is None:
                raise CommandError(f"--user {options['user']!r}: no such user")
        existing = Release.objects.filter(version=options["release_version"]).first()
        if existing is not None and options["exist_ok"]:
            self.stdout.write(f"release {existing.version} exists already ({existing.status}): left as it is")
            return
        if options["policy"] and not options["campaigns"]:
            raise CommandError("--policy filters campaign annotators: give --campaigns too")
        if options["machine_annotators"] and not options["campaigns"]:
            raise CommandError("--machine-annotators carries the answers to campaigns: give --campaigns too")
        try:
            release = create_release(
                options["release_version"],
                languages=split(options["languages"]),
                user=user,
                publish=options["publish"],
                collections=split(options["collections"]),
                campaigns=split(options["campaigns"]),
                policy=options["policy"],
                title=options["title"],
                description=options["description"],
                citation=options["citation"],
                licence=options["licence"],
                machine_annotators=options["machine_annotators"],
                creators=options["creators"],
                intended_use=options["intended_use"],
                limitations=options["limitations"],
                biases=options["biases"],
            )
        except ReleaseError as exc:
            raise CommandError(str(exc)) from None
        self.stdout.write("\n".join(summary_lines(release)))


def summary_lines(release: Release) -> list[str]:
    lines = [
        f"release {release.version} ({release.status}): {', '.join(release.languages)}",
        f"  scores: {release.scores.get('source')}"
        + (f" from {', '.join(release.scores.get('campaigns', []))}" if release.scores.get("campaigns") else ""),
    ]
    if any(f["path"] == MACHINE_JSONL for f in release.manifest.get("files", [])):
        lines.append(f"  machine-made ratings (kept apart from the scores): {MACHINE_JSONL}")
    for language, counts in sorted(release.counts.items()):
        classes = ", ".join(f"{name} {n}" for name, n in sorted(counts["classes"].items()))
        variants = sum(counts["variants"].values())
        lines.append(
            f"  {language}: {counts['compounds']} compounds ({classes}), {counts['sentences']} sentences, "
            f"{variants} variants"
        )
    lines.append(
        f"  files: {len(release.manifest.get('files', []))}  checksum (sha256 of manifest.json): {release.checksum}"
    )
    return lines
