"""The browsable API documentation: Swagger UI from drf-spectacular-sidecar's static files.

drf-spectacular's split view serves the page and its start-up script from two requests, so the
page needs no inline script; our template drops the package's inline <style> for a static file.
"""

from __future__ import annotations

from drf_spectacular.views import SpectacularSwaggerSplitView


class APIDocsView(SpectacularSwaggerSplitView):
    """Swagger UI over /api/schema/, with nothing inline (the Content-Security-Policy allows none)."""

    template_name = "api/docs.html"
    url_name = "api:schema"
