"""Who may do what, in every app: the roles, the view decorator and the DRF permission.

- annotator: any account (or crowd worker); sees only their own work (annotation's journey);
- curator: a member of the Django group ``curators``, or staff; manages campaigns, reads
  dashboards and exports every rating, reads the working dataset, reviews variants, counts
  corpora, creates and publishes releases, registers models and starts probe runs;
- admin: a superuser (a curator too, and the Django admin).

Here, under every app, because each stage checks the same role; the ``curators`` group itself
is made by annotation/migrations/0002_curators_group.py.
"""

from __future__ import annotations

from functools import wraps

from django.contrib.auth.views import redirect_to_login
from django.core.exceptions import PermissionDenied
from rest_framework.permissions import BasePermission

CURATORS_GROUP = "curators"


def is_curator(user) -> bool:
    """Staff, superusers and members of the ``curators`` group (never an anonymous visitor)."""
    if user is None or not user.is_authenticated or not user.is_active:
        return False
    if user.is_staff or user.is_superuser:
        return True
    # Asked by a view's check and again by its template: one query per request's user object.
    if (known := getattr(user, "_is_curator", None)) is None:
        known = user._is_curator = user.groups.filter(name=CURATORS_GROUP).exists()
    return known


def curator_required(view):
    """Anonymous visitors go to the login page; signed-in non-curators get 403."""

    @wraps(view)
    def wrapper(request, *args, **kwargs):
        if not request.user.is_authenticated:
            return redirect_to_login(request.get_full_path())
        if not is_curator(request.user):
            raise PermissionDenied("Curators only.")
        return view(request, *args, **kwargs)

    return wrapper


class IsCurator(BasePermission):
    """DRF: curators only (401/403 otherwise)."""

    message = "Curators only."

    def has_permission(self, request, view) -> bool:
        return is_curator(request.user)
