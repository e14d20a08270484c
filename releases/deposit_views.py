"""A release's deposit: the bundle a curator uploads to Zenodo (or any DataCite repository), and the DOI
entered once the repository has minted it.

The bundle is public like the release itself (a draft's is for curators only); entering a DOI is a
curator's write, through ``doi_actions.record_doi``, which leaves the release's files as they are and
keeps the metadata files that name the DOI beside them.
"""

from __future__ import annotations

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect
from django.views.decorators.http import require_GET, require_POST

from core.permissions import curator_required
from releases.doi_actions import deposit_bundle, record_doi
from releases.formats import ReleaseIntegrityError
from releases.models import Release, ReleaseError
from releases.views import _message, attachment, get_visible_release, integrity_error


@require_GET
def release_deposit(request: HttpRequest, version: str) -> HttpResponse:
    """release-VERSION.zip, CITATION.cff and zenodo.json in one zip: what a deposit uploads."""
    release = get_visible_release(request, version)
    try:
        data = deposit_bundle(release)
    except ReleaseIntegrityError as error:
        return integrity_error(request, error)
    return attachment(data, f"release-{release.version}-deposit.zip", "application/zip")


@require_POST
@curator_required
def release_doi(request: HttpRequest, version: str) -> HttpResponse:
    """Record the DOI a repository gave the release's deposit (once; the form says what is wrong otherwise)."""
    release = get_object_or_404(Release, version=version)
    try:
        record = record_doi(release, request.POST.get("doi", ""), request.user)
    except ReleaseIntegrityError as error:
        return integrity_error(request, error)
    except ReleaseError as error:
        messages.error(request, f"DOI: {_message(error)}")
        return redirect("release", version=release.version)
    messages.success(
        request,
        f"Release {release.version} now names its DOI {record.doi}: its card, datapackage.json, croissant.json, "
        "CITATION.cff and deposit metadata say so; its data files are unchanged.",
    )
    return redirect("release", version=release.version)
