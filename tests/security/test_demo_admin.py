"""The demo's superuser (issue 13, item 9): admin/admin only with DEBUG on, else a random password shown once."""

from __future__ import annotations

import re
from io import StringIO

import pytest
from django.contrib.auth import authenticate, get_user_model
from django.core.management import call_command
from django.test import RequestFactory


def create_demo_admin() -> str:
    out = StringIO()
    call_command("create_demo_admin", stdout=out)
    return out.getvalue()


def logs_in(password: str) -> bool:
    return authenticate(RequestFactory().post("/accounts/login/"), username="admin", password=password) is not None


@pytest.mark.django_db
def test_with_debug_off_admin_admin_does_not_log_in_and_the_printed_password_does(settings):
    settings.DEBUG = False
    out = create_demo_admin()
    assert not logs_in("admin")
    password = re.search(r"the password (\S+)", out).group(1)
    assert len(password) >= 20 and logs_in(password)
    assert password not in create_demo_admin()  # printed once: a second run leaves it alone


@pytest.mark.django_db
def test_a_demo_password_left_from_a_debug_run_is_replaced_when_debug_is_off(settings):
    settings.DEBUG = True
    create_demo_admin()
    assert logs_in("admin")
    settings.DEBUG = False
    out = create_demo_admin()
    assert not logs_in("admin") and "new password is" in out
    assert get_user_model().objects.filter(username="admin").count() == 1


@pytest.mark.django_db
def test_with_debug_on_the_demo_login_is_admin_admin(settings):
    settings.DEBUG = True
    assert "admin / admin" in create_demo_admin()
    assert logs_in("admin")
