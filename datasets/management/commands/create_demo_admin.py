"""Create the demo's superuser: admin/admin with DEBUG on, a random password printed once otherwise."""

from __future__ import annotations

from django.conf import settings
from django.core.management.base import BaseCommand

from datasets.actions import DEMO_ADMIN, ensure_demo_admin


class Command(BaseCommand):
    help = "Create the demo superuser 'admin' (password admin only with DEBUG on; else random, printed once)."

    def handle(self, *args, **options) -> None:
        happened, password = ensure_demo_admin(settings.DEBUG)
        if happened == "exists":
            self.stdout.write(f"demo: superuser {DEMO_ADMIN} already exists (password unchanged)")
        elif settings.DEBUG:
            self.stdout.write(f"demo: created the local demo superuser {DEMO_ADMIN} / {password} (DEBUG is on)")
        else:
            if happened == "created":
                self.stdout.write(f"demo: created the superuser {DEMO_ADMIN} with the password {password}")
            else:
                self.stdout.write(f"demo: {DEMO_ADMIN} had the demo password admin; its new password is {password}")
            self.stdout.write(
                f"demo: it is shown this once: keep it, or set another with `manage.py changepassword {DEMO_ADMIN}`"
            )
