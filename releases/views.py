"""Release pages: the list (and a curator's form to create one), one page per release, downloads, diffs.

Anyone reads published releases; drafts are for curators only (a 404 for anyone else, as if they did
not exist). Every byte served (a file, the zip, a diff) is read through ``release_files``, which checks
it against the manifest: a release whose stored files were altered answers with an integrity error
page (409) and never with its data.
"""

from __future__ import annotations

import json
from dataclasses import asdict

from django.contrib import messages
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.http import content_disposition_header
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from core.permissions import curator_required, is_curator
from datasets import vocabulary
from releases import actions
from releases.diff import diff_snapshots
from releases.display import class_label, data_card_html, display_value, policy_words
from releases.formats import ReleaseIntegrityError, snapshot_from_files
from releases.formats.datapackage import score_info_from_dict, snapshot_parts
from releases.formats.deposit import CITATION_CFF, ZENODO_JSON
from releases.formats.hf import HF_README
from releases.formats.machine import machine_summary
from releases.formats.meta import CROISSANT, Creator
from releases.formats.score_sources import simulated_note, sources
from releases.forms import ReleaseForm
from releases.models import MANIFEST, ZIP_NAME, Release, ReleaseError, sha256_hex, version_key
from releases.tasks import start_release_job

# The files that publish a release elsewhere, as its page links them (a release made before them has none).
PUBLISHING_FILES = (
    (CROISSANT, "Croissant 1.1 metadata with the Responsible-AI fields, for dataset venues and search engines"),
    (
        HF_README,
        "the Hugging Face layout's card: one Parquet config per table and language (export_release "
        "--format hf; push_release --to-hub)",
    ),
    (CITATION_CFF, "how to cite it (Citation File Format)"),
    (ZENODO_JSON, "the Zenodo / DataCite deposit metadata"),
)
# Rows of each diff table shown on the page; the JSON has them all.
DIFF_ROWS_SHOWN = 200
UNCLASSIFIED = vocabulary.UNCLASSIFIED


def visible_releases(user):
    """Published releases for everyone, drafts too for curators."""
    releases = Release.objects.select_related("created_by", "published_by", "doi_record")
    return releases if is_curator(user) else releases.published()


def get_visible_release(request: HttpRequest, version: str) -> Release:
    return get_object_or_404(visible_releases(request.user), version=version)


def release_order(releases) -> list[Release]:
    """Published releases newest version first, then the drafts."""
    return sorted(releases, key=lambda r: (not r.is_published, tuple(-part for part in version_key(r.version))))


def previous_versions(releases) -> dict[str, str]:
    """Each version's predecessor by version number, for the "changes since" links."""
    ordered = sorted((r.version for r in releases), key=version_key)
    return dict(zip(ordered[1:], ordered[:-1], strict=True))


def integrity_error(request: HttpRequest, error: ReleaseIntegrityError) -> HttpResponse:
    # 409: the request is fine, the stored release is not in the state its manifest promises.
    return render(request, "datasets/releases/integrity_error.html", {"error": error}, status=409)


@require_http_methods(["GET", "HEAD", "POST"])
def releases(request: HttpRequest) -> HttpResponse:
    """Every visible release; a curator's POST creates one."""
    if request.method == "POST":
        return create_release_view(request)
    return _release_list(request, ReleaseForm() if is_curator(request.user) else None)


def _release_list(request: HttpRequest, form: ReleaseForm | None, status: int = 200) -> HttpResponse:
    rows = release_order(visible_releases(request.user).defer("manifest"))
    previous = previous_versions(rows)
    for release in rows:
        release.previous_version = previous.get(release.version)
        release.total_compounds = sum(lang.get("compounds", 0) for lang in release.counts.values())
        release.total_sentences = sum(lang.get("sentences", 0) for lang in release.counts.values())
    return render(request, "datasets/releases/list.html", {"releases": rows, "form": form}, status=status)


@curator_required
def create_release_view(request: HttpRequest) -> HttpResponse:
    """Check the form and the request at once (a 400 naming what is wrong), then let a worker build the release."""
    form = ReleaseForm(request.POST)
    if not form.is_valid():
        return _release_list(request, form, status=400)
    data = form.cleaned_data
    options = {
        "languages": data["languages"],
        "collections": [data["collection"]] if data["collection"] else None,
        "campaigns": [campaign.slug for campaign in data["campaigns"]] or None,
        "policy": data["policy"].name if data["policy"] else None,
        "title": data["title"],
        "description": data["description"],
        "citation": data["citation"],
        "machine_annotators": data["machine_annotators"],
        "creators": data["creators"],
        "intended_use": data["intended_use"],
        "limitations": data["limitations"],
        "biases": data["biases"],
    }
    try:
        job = start_release_job(data["version"], options, user=request.user, publish_next=data["publish"])
    except ReleaseError as error:
        form.add_error(None, _message(error))
        return _release_list(request, form, status=400)
    return redirect("release_job", pk=job.pk)


def _message(error: Exception) -> str:
    text = str(error)
    return text[:1].upper() + text[1:]


@require_GET
def release_detail(request: HttpRequest, version: str) -> HttpResponse:
    release = get_visible_release(request, version)
    try:
        files = actions.release_files(release)
    except ReleaseIntegrityError as error:
        return integrity_error(request, error)
    # The files as readers get them (with the DOI's metadata files once entered), each with its role.
    listed = json.loads(files[MANIFEST])["files"]
    rows = [{"path": f["path"], "size": f["bytes"], "sha256": f["sha256"], "role": f.get("role", "")} for f in listed]
    rows.append({"path": MANIFEST, "size": len(files[MANIFEST]), "sha256": sha256_hex(files[MANIFEST]), "role": ""})
    versions = release_order(visible_releases(request.user).select_related(None).only("version", "status"))
    others = [r.version for r in versions if r.pk != release.pk]
    readme = files.get("README.md", b"").decode("utf-8", errors="replace")
    score_info = score_info_from_dict(release.scores or {})
    return render(
        request,
        "datasets/releases/detail.html",
        {
            "release": release,
            "data_card": data_card_html(readme) if readme else "",
            "policy": policy_words((release.scores or {}).get("policy")),
            "versions": sorted(versions, key=lambda r: version_key(r.version)),
            "previous_version": previous_versions(versions).get(release.version),
            "files": rows,
            # the zip readers download: with the DOI's metadata files once it has one
            "zip": (release.doi_record.files if release.doi else release.files)
            .filter(path=ZIP_NAME)
            .values("size", "sha256")
            .first(),
            "counts": counts_tables(release.counts),
            "scores": release.scores,
            "sources": sources(score_info),
            "simulated": simulated_note(score_info),
            "machine": machine_summary(files),
            "agreement": [asdict(row) for row in snapshot_parts(files)[2]],  # datapackage.json alone: no table parsed
            "others": others,
            "can_publish": is_curator(request.user) and not release.is_published,
            "can_record_doi": is_curator(request.user) and not release.doi,
            "manifest_sha256": sha256_hex(files[MANIFEST]),
            "creators": [Creator(**c) for c in release.creators or ()],
            "links": [(path, words) for path, words in PUBLISHING_FILES if path in files],
        },
    )


def counts_tables(counts: dict) -> dict:
    """``Release.counts`` as two tables, languages × classes and probe kinds × languages, in vocabulary order."""
    classes = [(value, label) for value, label in vocabulary.CLASS_CHOICES] + [(UNCLASSIFIED, "Unclassified")]
    kind_order = {kind: position for position, (kind, _) in enumerate(vocabulary.VARIANT_KIND_CHOICES)}
    kinds = sorted(
        {k for lang in counts.values() for k in lang.get("variants", {})}, key=lambda k: (kind_order.get(k, 99), k)
    )
    labels = dict(vocabulary.VARIANT_KIND_CHOICES)
    rows = []
    for language in sorted(counts):
        lang = counts[language]
        rows.append(
            {
                "language": language,
                "language_name": vocabulary.language_name(language),
                "compounds": lang.get("compounds", 0),
                "sentences": lang.get("sentences", 0),
                "classes": [lang.get("classes", {}).get(value, 0) for value, _ in classes],
                "variants": [lang.get("variants", {}).get(kind, 0) for kind in kinds],
                "variant_total": sum(lang.get("variants", {}).values()),
            }
        )
    return {
        "classes": [label for _, label in classes],
        "kinds": [(kind, labels.get(kind, kind)) for kind in kinds],
        "rows": rows,
        # probe kinds down the side, languages across: a row per kind fits any page, however many kinds
        "kind_rows": [
            {"kind": kind, "label": labels.get(kind, kind), "counts": [row["variants"][i] for row in rows]}
            for i, kind in enumerate(kinds)
        ],
    }


@require_GET
def release_file(request: HttpRequest, version: str, path: str) -> HttpResponse:
    """One file of the release, verified, as an attachment."""
    release = get_visible_release(request, version)
    row = get_object_or_404(release.files.only("path", "media_type"), path=path)
    if path == ZIP_NAME:
        return release_zip(request, version)
    try:
        files = actions.release_files(release)
    except ReleaseIntegrityError as error:
        return integrity_error(request, error)
    return attachment(files[path], path.rsplit("/", 1)[-1], row.media_type)


@require_GET
def release_zip(request: HttpRequest, version: str) -> HttpResponse:
    """Every file of the release in one zip, checked against its recorded sha256."""
    release = get_visible_release(request, version)
    try:
        data = actions.release_zip(release)
    except ReleaseIntegrityError as error:
        return integrity_error(request, error)
    return attachment(data, f"release-{release.version}.zip", "application/zip")


def attachment(data: bytes, filename: str, media_type: str) -> HttpResponse:
    response = HttpResponse(data, content_type=media_type or "application/octet-stream")
    response["Content-Disposition"] = content_disposition_header(True, filename)
    response["Content-Length"] = str(len(data))
    return response


@require_POST
@curator_required
def release_publish(request: HttpRequest, version: str) -> HttpResponse:
    """Publish a draft, once the curator has read what freezes and said yes."""
    release = get_object_or_404(Release, version=version)
    if request.POST.get("confirm") != "yes":
        return publish_confirmation(request, release)
    try:
        actions.publish_release(release, request.user)
    except ReleaseIntegrityError as error:
        return integrity_error(request, error)
    except ReleaseError as error:
        messages.error(request, _message(error))
    else:
        messages.success(request, f"Release {release.version} is published: it can no longer change.")
    return redirect("release", version=release.version)


def publish_confirmation(request: HttpRequest, release: Release) -> HttpResponse:
    """What publishing freezes, said before it happens."""
    if release.is_published:
        return redirect("release", version=release.version)
    try:
        files = actions.release_files(release)  # a draft whose files were tampered with is never offered for publishing
    except ReleaseIntegrityError as error:
        return integrity_error(request, error)
    info = score_info_from_dict(release.scores or {})
    context = {
        "release": release,
        "file_count": release.files.exclude(path=ZIP_NAME).count(),
        "sources": sources(info),
        "simulated": simulated_note(info),
        "machine": machine_summary(files),
    }
    return render(request, "datasets/releases/confirm_publish.html", context)


@require_GET
def release_diff_choose(request: HttpRequest, version: str) -> HttpResponse:
    """The detail page's form: the older of the two versions is the diff's "old" side."""
    release = get_visible_release(request, version)
    other = get_visible_release(request, request.GET.get("other", "").strip())
    old, new = sorted([release, other], key=lambda r: version_key(r.version))
    return redirect("release_diff", version=old.version, other=new.version)


@require_GET
def release_diff(request: HttpRequest, version: str, other: str, as_json: bool = False) -> HttpResponse:
    """What changed from ``version`` to ``other``: a page, or JSON (``?format=json`` or ``.json``)."""
    old, new = get_visible_release(request, version), get_visible_release(request, other)
    try:
        diff = release_diff_data(old, new)
    except ReleaseIntegrityError as error:
        return integrity_error(request, error)
    if as_json or request.GET.get("format") == "json":
        return JsonResponse(diff, json_dumps_params={"indent": 2})
    return render(
        request,
        "datasets/releases/diff.html",
        {
            "old": old,
            "new": new,
            "diff": diff,
            "tables": diff_tables(diff),
            "class_changes": [
                {"old": class_label(row["old"]), "new": class_label(row["new"]), "count": row["count"]}
                for row in diff["classes"]
            ],
            "shown": DIFF_ROWS_SHOWN,
        },
    )


def release_diff_data(old: Release, new: Release) -> dict:
    """The diff of two releases read from their verified files (ReleaseIntegrityError if either is altered)."""
    before, _ = snapshot_from_files(actions.release_files(old))
    after, _ = snapshot_from_files(actions.release_files(new))
    return {"old": old.version, "new": new.version} | diff_snapshots(before, after)


# (part, title, identity columns) of the diff page's tables.
DIFF_PARTS = [
    ("compounds", "Compounds", ["language", "compound"]),
    ("sentences", "Sentences", ["language", "compound", "kind", "slot"]),
    ("variants", "Variants", ["language", "compound", "sentence_kind", "sentence_slot", "kind", "rank", "isolated"]),
    ("paraphrases", "Paraphrases", ["language", "compound", "level", "slot", "text"]),
    ("agreement", "Agreement", ["language", "question", "source"]),
]


def diff_tables(diff: dict) -> list[dict]:
    """The diff's rows split into identity cells and the rest, cut to ``DIFF_ROWS_SHOWN`` rows per table."""
    tables = []
    for part, title, identity in DIFF_PARTS:
        sections = []
        for change in ("added", "removed", "changed"):
            rows = diff[part][change]
            sections.append(
                {
                    "change": change,
                    "count": len(rows),
                    "rows": [
                        {
                            "identity": [display_value(row.get(name)) for name in identity],
                            "values": _changes(row["changes"]) if change == "changed" else _values(row, identity),
                        }
                        for row in rows[:DIFF_ROWS_SHOWN]
                    ],
                }
            )
        tables.append(
            {
                "part": part,
                "title": title,
                "identity": identity,
                "summary": diff["summary"][part],
                "sections": sections,
            }
        )
    return tables


def _values(row: dict, identity: list[str]) -> dict:
    """The row's non-empty values, but for its identity (and a compound's text, which is its identity)."""
    hidden = {*identity, "text"} if row.get("text") == row.get("compound") else set(identity)
    return {name: display_value(value) for name, value in row.items() if name not in hidden and value not in (None, "")}


def _changes(changes: dict) -> dict:
    """A changed row's ``{name: {old, new}}`` as display strings (the JSON keeps the exact values)."""
    return {
        name: {"old": display_value(change.get("old")), "new": display_value(change.get("new"))}
        for name, change in changes.items()
    }
