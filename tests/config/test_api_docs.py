"""The browsable API documentation (Swagger UI) is served from our own static files, under the CSP."""

from __future__ import annotations

import pytest
from django.urls import reverse


@pytest.mark.django_db
def test_the_docs_page_loads_swagger_ui_from_static_files_with_nothing_inline(client):
    response = client.get(reverse("api:docs"))
    assert response.status_code == 200
    body = response.content.decode()
    assert "/static/drf_spectacular_sidecar/swagger-ui-dist/swagger-ui-bundle.js" in body
    assert "cdn" not in body.lower()
    assert "<style" not in body
    assert "<script>" not in body  # every script has a src (the CSP allows no inline script)
    script = client.get(reverse("api:docs") + "?script=")
    assert script.status_code == 200
    assert script["Content-Type"].startswith("application/javascript")
    assert reverse("api:schema") in script.content.decode()


@pytest.mark.browser
@pytest.mark.usefixtures("transactional_db")
def test_swagger_ui_renders_the_api_under_the_content_security_policy(live_server, page):
    console: list[str] = []
    page.on("console", lambda message: console.append(message.text) if message.type == "error" else None)
    response = page.goto(live_server.url + reverse("api:docs"))
    assert "script-src 'self'" in response.headers["content-security-policy"]
    page.locator(".opblock-tag").first.wait_for(timeout=15000)
    assert page.get_by_text("Idiomaticity Workbench API").first.is_visible()
    assert page.locator(".opblock-tag", has_text="releases").count() >= 1
    assert console == []
