"""Approve the pending variants that carry no flag, as a named curator (each approval audited)."""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError, CommandParser

from building.variants.curation import approve_unflagged
from datasets.models import Compound


class Command(BaseCommand):
    help = (
        "Approve every pending, unflagged variant of the selected compounds on behalf of --user "
        "(the review page's 'Approve all unflagged', in bulk). Flagged variants stay pending for review."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--user", required=True, help="The curator recorded in the audit trail.")
        parser.add_argument("--language", help="Only compounds of this language (en, pt; default: all).")
        parser.add_argument("--collection", help="Only compounds of this collection (slug; default: all).")
        parser.add_argument("--kinds", help="Comma-separated variant kinds (default: all).")

    def handle(self, *args, **options) -> None:
        user = get_user_model().objects.filter(username=options["user"]).first()
        if user is None:
            raise CommandError(f"--user {options['user']!r}: no such user")
        compounds = Compound.objects.order_by("pk")
        if options["language"]:
            compounds = compounds.filter(language=options["language"])
        if options["collection"]:
            compounds = compounds.filter(collection__slug=options["collection"])
        kinds = [k.strip() for k in (options["kinds"] or "").split(",") if k.strip()] or None
        approved = sum(approve_unflagged(compound, user, kinds) for compound in compounds)
        self.stdout.write(f"{approved} variants approved by {user.username} ({compounds.count()} compounds)")
