"""Approve the pending variants that carry no flag and rank first in their slot, as a named curator (each approval audited)."""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError, CommandParser

from building.variants.curation import approve_unflagged
from datasets.models import Compound


class Command(BaseCommand):
    help = (
        "Approve, on behalf of --user, the pending variants of the selected compounds that carry no flag and "
        "rank first in their slot (a sentence's kind, in or out of context; each random compound is a slot of "
        "its own): what a curator accepts without reading on. Flagged and lower-ranked variants stay pending for review; --all-ranks approves every "
        "unflagged one (the review page's 'Approve all unflagged', in bulk)."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--user", required=True, help="The curator recorded in the audit trail.")
        parser.add_argument("--language", help="Only compounds of this language (en, pt; default: all).")
        parser.add_argument("--collection", help="Only compounds of this collection (slug; default: all).")
        parser.add_argument("--kinds", help="Comma-separated variant kinds (default: all).")
        parser.add_argument(
            "--all-ranks",
            action="store_true",
            help="Approve every unflagged variant, not only the first-ranked of each slot.",
        )

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
        top = not options["all_ranks"]
        approved = sum(approve_unflagged(compound, user, kinds, top_ranked_only=top) for compound in compounds)
        which = "unflagged, first-ranked" if top else "unflagged"
        self.stdout.write(f"{approved} {which} variants approved by {user.username} ({compounds.count()} compounds)")
