"""WSGI entry point."""

import os

from django.core.wsgi import get_wsgi_application
from django.urls import get_resolver

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
application = get_wsgi_application()
# Import every view now (with gunicorn's preload_app: once, before it forks the workers), not in a
# worker's first request: some (the building app's, with inflect) take seconds of CPU to import.
get_resolver().url_patterns  # noqa: B018 (the property imports them)
