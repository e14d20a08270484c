"""Writes to the dataset that span rows: each an action with a verb name."""

from __future__ import annotations

import secrets

from django.contrib.auth import get_user_model
from django.utils import timezone

from datasets import vocabulary
from datasets.models import Compound


def choose_gold_synonym(compound: Compound, text: str, user) -> Compound:
    """A curator's pick, recorded with who and when; derivation never overrides it."""
    text = " ".join(text.split())
    if not text:
        raise ValueError("the gold synonym cannot be empty")
    compound.gold_synonym, compound.gold_synonym_source = text, vocabulary.GOLD_FROM_CURATOR
    compound.gold_synonym_set_by, compound.gold_synonym_set_at = user, timezone.now()
    compound.save(update_fields=["gold_synonym", "gold_synonym_source", "gold_synonym_set_by", "gold_synonym_set_at"])
    return compound


DEMO_ADMIN = "admin"
DEMO_ADMIN_DEBUG_PASSWORD = "admin"


def ensure_demo_admin(debug: bool) -> tuple[str, str | None]:
    """The demo's superuser: (what happened, the new password to show once, or None).

    With DEBUG on: ``admin``/``admin``. With DEBUG off the server may be reachable by others: never a
    guessable password; a random one, set where the account is new or still has the demo password.
    """
    users = get_user_model().objects
    user = users.filter(username=DEMO_ADMIN).first()
    if debug:
        if user is not None:
            return "exists", None
        users.create_superuser(DEMO_ADMIN, "admin@localhost", DEMO_ADMIN_DEBUG_PASSWORD)
        return "created", DEMO_ADMIN_DEBUG_PASSWORD
    if user is not None and not user.check_password(DEMO_ADMIN_DEBUG_PASSWORD):
        return "exists", None
    password = secrets.token_urlsafe(18)
    if user is None:
        users.create_superuser(DEMO_ADMIN, "admin@localhost", password)
        return "created", password
    user.set_password(password)
    user.save(update_fields=["password"])
    return "changed", password
