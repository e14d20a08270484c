"""Create the demo's superuser: admin/admin with DEBUG on, a random password printed once otherwise."""

from __future__ import annotations

import secrets

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand

USERNAME = "admin"
DEBUG_PASSWORD = "admin"


class Command(BaseCommand):
    help = "Create the demo superuser 'admin' (password admin only with DEBUG on; else random, printed once)."

    def handle(self, *args, **options) -> None:
        user = get_user_model().objects.filter(username=USERNAME).first()
        if settings.DEBUG:
            if user is None:
                get_user_model().objects.create_superuser(USERNAME, "admin@localhost", DEBUG_PASSWORD)
                self.stdout.write("demo: created the local demo superuser admin / admin (DEBUG is on)")
            else:
                self.stdout.write("demo: superuser admin already exists (password unchanged)")
            return
        # With DEBUG off the server may be reachable by others: no guessable password, ever.
        if user is not None and not user.check_password(DEBUG_PASSWORD):
            self.stdout.write("demo: superuser admin already exists (password unchanged)")
            return
        password = secrets.token_urlsafe(18)
        if user is None:
            get_user_model().objects.create_superuser(USERNAME, "admin@localhost", password)
            self.stdout.write(f"demo: created the superuser admin with the password {password}")
        else:
            user.set_password(password)
            user.save(update_fields=["password"])
            self.stdout.write(f"demo: admin had the demo password admin; its new password is {password}")
        self.stdout.write("demo: it is shown this once: keep it, or set another with `manage.py changepassword admin`")
