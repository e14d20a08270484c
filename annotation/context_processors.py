"""Template context about the signed-in user's role."""

from django.http import HttpRequest

from core.permissions import is_curator


def roles(request: HttpRequest) -> dict:
    user = getattr(request, "user", None)
    # Lazy, so that pages which never ask do not query the user's groups.
    return {"user_is_curator": lambda: bool(user and is_curator(user))}
