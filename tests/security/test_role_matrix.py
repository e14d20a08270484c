"""The role × URL matrix (issue 13): every route of the URL resolver, for five personas, GET and POST.

Personas: an anonymous visitor, a plain account (no role), a crowd worker (no account, enrolled
in a campaign through its link), a curator (the ``curators`` group, not staff) and a superuser.
GET answers the status class the table says; a POST without a CSRF token is refused for everyone
(403, or 405 where the route takes no POST): no write goes through without one.

A route missing from the table fails the test: a new page or endpoint gets its row here.
"""

from __future__ import annotations

import re
import uuid

import pytest
from django.contrib.auth.models import Group
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver

from annotators.models import AnnotationJob
from building.models import BuildJob, FrequencyTable
from core.permissions import CURATORS_GROUP
from datasets.models import ImportRun
from probing.models import EmbeddingModel
from releases.models import ReleaseJob
from tests.security.study_world import make_study_world

PERSONAS = ("anonymous", "user", "crowd", "curator", "superuser")
PROLIFIC = {"PROLIFIC_PID": "matrix-worker", "STUDY_ID": "s", "SESSION_ID": "1"}

# Expected GET status class per persona (anonymous, user, crowd, curator, superuser):
PUBLIC = ("2xx", "2xx", "2xx", "2xx", "2xx")
CURATOR_PAGE = ("3xx", "403", "3xx", "2xx", "2xx")  # HTML: log in first; a signed-in non-curator is refused
CURATOR_API = ("403", "403", "403", "2xx", "2xx")
STAFF = ("3xx", "3xx", "3xx", "3xx", "2xx")  # the Django admin: its login page for anyone not staff
STAFF_ANY = ("3xx", "3xx", "3xx", "3xx", "2xx/3xx/404")  # a superuser may be redirected (a missing object) or get a 404
STAFF_REFUSED = (
    "3xx",
    "3xx",
    "3xx",
    "3xx",
    "403",
)  # nobody adds or deletes releases, their files, runs, imports, lockouts
JOURNEY = ("403", "403", "2xx/3xx", "403", "403")  # an annotator's pages: only the enrolled worker's session
POST_ONLY = ("405", "405", "405", "405", "405")
CURATOR_POST = ("403", "403", "403", "405", "405")  # an API action for curators, and only by POST

# route name -> (expected GET classes, path parameters from the world)
ROUTES: dict[str, tuple[tuple[str, ...], dict]] = {
    "login": (PUBLIC, {}),
    "logout": (POST_ONLY, {}),
    "home": (PUBLIC, {}),
    # 200 or 503: whether the database and the broker answer (the test's broker may be the embedded one)
    "healthz": (("2xx/503",) * 5, {}),
    # the working dataset holds the answers crowd workers give (scores, classes, paraphrases): curators only
    "compound": (CURATOR_PAGE, {"pk": "compound"}),
    "choose_gold_synonym": (POST_ONLY, {"pk": "compound"}),
    "datasets_upload": (CURATOR_PAGE, {}),
    # an upload's token lives in its curator's session: another session gets a 404
    "datasets_upload_preview": (("3xx", "403", "3xx", "404", "404"), {"token": "uuid"}),
    "language_report": (CURATOR_PAGE, {"language": "en"}),
    # curation, build jobs, campaigns
    "curator:campaigns": (CURATOR_PAGE, {}),
    "curator:create": (CURATOR_PAGE, {}),
    "curator:dashboard": (CURATOR_PAGE, {"slug": "campaign"}),
    "curator:report": (CURATOR_PAGE, {"slug": "campaign"}),
    "curator:report_stamp": (CURATOR_PAGE, {"slug": "campaign"}),
    "curator:preview": (CURATOR_PAGE, {"slug": "campaign"}),
    "curator:edit": (CURATOR_PAGE, {"slug": "campaign"}),
    "curator:items": (POST_ONLY, {"slug": "campaign"}),
    "curator:status": (POST_ONLY, {"slug": "campaign"}),
    "curator:export": (CURATOR_PAGE, {"slug": "campaign", "table": "ratings", "fmt": "csv"}),
    # the study setup and payments of a campaign (item and example ids: none in the world, so 404 for curators)
    "curator:items_pick": (CURATOR_PAGE, {"slug": "campaign"}),
    "curator:checks": (CURATOR_PAGE, {"slug": "campaign"}),
    "curator:check_add": (POST_ONLY, {"slug": "campaign"}),
    "curator:check_edit": (("3xx", "403", "3xx", "404", "404"), {"slug": "campaign"}),
    "curator:check_remove": (POST_ONLY, {"slug": "campaign"}),
    "curator:example_add": (POST_ONLY, {"slug": "campaign"}),
    "curator:example_edit": (("3xx", "403", "3xx", "404", "404"), {"slug": "campaign"}),
    "curator:example_remove": (POST_ONLY, {"slug": "campaign"}),
    "curator:quality": (CURATOR_PAGE, {"slug": "campaign"}),
    "curator:planner": (CURATOR_PAGE, {"slug": "campaign"}),
    "curator:payments": (CURATOR_PAGE, {"slug": "campaign"}),
    "curator:prolific": (POST_ONLY, {"slug": "campaign"}),
    "curator:payment_file": (CURATOR_PAGE, {"slug": "campaign", "name": "prolific.csv"}),
    "review_queue": (CURATOR_PAGE, {}),
    "review_compound": (CURATOR_PAGE, {"pk": "compound"}),
    "review_approve_unflagged": (POST_ONLY, {"pk": "compound"}),
    "review_variant": (POST_ONLY, {"pk": "variant", "action": "approve"}),
    "generate_variants": (CURATOR_PAGE, {}),
    "corpus_count": (CURATOR_PAGE, {}),
    "apply_frequency_table": (POST_ONLY, {"pk": "table"}),
    "build": (("3xx",) * 5, {}),  # /build/ sends everyone on to the build jobs, which check the role
    "build_jobs": (CURATOR_PAGE, {}),
    "build_job": (CURATOR_PAGE, {"pk": "job"}),
    "build_job_json": (CURATOR_PAGE, {"pk": "job"}),
    "cancel_build_job": (POST_ONLY, {"pk": "job"}),
    "release_job": (CURATOR_PAGE, {"pk": "release_job"}),
    "release_job_json": (CURATOR_PAGE, {"pk": "release_job"}),
    # releases: published ones are public; publishing is a curator's POST
    "releases": (PUBLIC, {}),
    "release": (PUBLIC, {"version": "version"}),
    "release_publish": (POST_ONLY, {"version": "version"}),
    "release_zip": (PUBLIC, {"version": "version"}),
    "release_deposit": (PUBLIC, {"version": "version"}),
    "release_doi": (POST_ONLY, {"version": "version"}),
    "release_file": (PUBLIC, {"version": "version", "path": "README.md"}),
    "release_diff_choose": (("3xx",) * 5, {"version": "version", "?other": "version"}),
    "release_diff": (PUBLIC, {"version": "version", "other": "version"}),
    "release_diff_json": (PUBLIC, {"version": "version", "other": "version"}),
    # probing pages: reports are public (internals only for curators); actions are curators' POSTs
    "probe_runs": (PUBLIC, {}),
    "probe_compare": (PUBLIC, {}),
    "probe_leaderboard": (PUBLIC, {}),
    "probe_run": (PUBLIC, {"pk": "run"}),
    "probe_run_json": (PUBLIC, {"pk": "run"}),
    "probe_run_report": (PUBLIC, {"pk": "run"}),
    "probe_run_csv": (PUBLIC, {"pk": "run", "table": "summary"}),
    "probe_run_figure": (PUBLIC, {"pk": "run", "key": "similarity-nc", "fmt": "svg"}),
    # a correlogram needs two runs and the world has one: the same 404 for everyone (the page is public)
    "probe_compare_figure": (("404",) * 5, {"measure": "sim", "fmt": "svg", "?runs": "run"}),
    "probe_run_cancel": (POST_ONLY, {"pk": "run"}),
    "probe_run_resume": (POST_ONLY, {"pk": "run"}),
    # the annotator's journey
    "annotation:start": (("400", "2xx", "400", "2xx", "2xx"), {"slug": "campaign"}),
    "annotation:consent": (JOURNEY, {"slug": "campaign"}),
    "annotation:instructions": (JOURNEY, {"slug": "campaign"}),
    "annotation:rate": (JOURNEY, {"slug": "campaign"}),
    "annotation:feedback": (("403", "403", "404", "403", "403"), {"slug": "campaign", "token": "uuid"}),
    "annotation:screened_out": (JOURNEY, {"slug": "campaign"}),
    "annotation:resume": (POST_ONLY, {"slug": "campaign"}),
    "annotation:full": (JOURNEY, {"slug": "campaign"}),
    "annotation:done": (JOURNEY, {"slug": "campaign"}),
    # the API: releases, probing and the schema are public; the working dataset, curators' data and
    # every write are curators' (session or token)
    "api:api-root": (PUBLIC, {}),
    "api:schema": (PUBLIC, {}),
    "api:docs": (PUBLIC, {}),
    "api:compound-list": (CURATOR_API, {}),
    "api:compound-detail": (CURATOR_API, {"pk": "compound"}),
    "api:sentence-list": (CURATOR_API, {}),
    "api:sentence-detail": (CURATOR_API, {"pk": "sentence"}),
    "api:variant-list": (CURATOR_API, {}),
    "api:variant-detail": (CURATOR_API, {"pk": "variant"}),
    "api:variant-changes": (CURATOR_API, {"pk": "variant"}),
    "api:variant-approve": (CURATOR_POST, {"pk": "variant"}),
    "api:variant-reject": (CURATOR_POST, {"pk": "variant"}),
    "api:variant-edit": (CURATOR_POST, {"pk": "variant"}),
    "api:variant-reset": (CURATOR_POST, {"pk": "variant"}),
    "api:release-list": (PUBLIC, {}),
    "api:release-detail": (PUBLIC, {"version": "version"}),
    "api:release-file": (PUBLIC, {"version": "version", "path": "README.md"}),
    "api:release-zip": (PUBLIC, {"version": "version"}),
    "api:release-diff": (PUBLIC, {"version": "version", "other": "version"}),
    "api:release-publish": (POST_ONLY, {"version": "version"}),
    "api:release-doi": (POST_ONLY, {"version": "version"}),
    "annotation_api:campaign-list": (CURATOR_API, {}),
    "annotation_api:campaign-detail": (CURATOR_API, {"pk": "campaign_id"}),
    "annotation_api:campaign-export": (CURATOR_API, {"pk": "campaign_id"}),
    "annotation_api:campaign-report": (CURATOR_API, {"pk": "campaign_id"}),
    "annotation_api:rating-list": (CURATOR_API, {}),
    "annotation_api:rating-detail": (CURATOR_API, {"pk": "rating"}),
    "annotation_api:policy-list": (CURATOR_API, {}),
    "probing_api:api-root": (PUBLIC, {}),
    "probing_api:model-list": (PUBLIC, {}),
    "probing_api:model-detail": (PUBLIC, {"name": "model"}),
    "probing_api:run-list": (PUBLIC, {}),
    "probing_api:run-detail": (PUBLIC, {"pk": "run"}),
    "probing_api:run-progress": (PUBLIC, {"pk": "run"}),
    "probing_api:run-cancel": (POST_ONLY, {"pk": "run"}),
    "probing_api:run-resume": (POST_ONLY, {"pk": "run"}),
    "annotators:campaign": (CURATOR_PAGE, {"slug": "campaign"}),
    "annotators:proposals": (CURATOR_PAGE, {}),
    "annotators:job_action": (POST_ONLY, {"slug": "campaign", "job_id": "annotation_job", "verb": "cancel"}),
    "annotators_api:api-root": (PUBLIC, {}),
    "annotators_api:job-list": (CURATOR_API, {}),
    "annotators_api:job-detail": (CURATOR_API, {"pk": "annotation_job"}),
    "annotators_api:job-cancel": (CURATOR_POST, {"pk": "annotation_job"}),
    "annotators_api:job-resume": (CURATOR_POST, {"pk": "annotation_job"}),
}
# The admin's routes, by name pattern (the first that matches): only staff get past its login page.
ADMIN_ROUTES = [
    (r"(releases_release|releases_releasefile|probing_proberun|datasets_importrun)_add", STAFF_REFUSED, {}),
    (r"releases_release_delete", STAFF_REFUSED, {"object_id": "release_pk"}),
    (r"releases_releasefile_delete", STAFF_REFUSED, {"object_id": "release_file"}),
    (r"probing_proberun_delete", STAFF_REFUSED, {"object_id": "run"}),
    (r"datasets_importrun_delete", STAFF_REFUSED, {"object_id": "import_run"}),
    (r"axes_\w+_add", STAFF_REFUSED, {}),  # lockouts are recorded, never typed in
    (r"index|\w+_changelist|\w+_add|password_change", STAFF, {}),
    (r"app_list", STAFF, {"app_label": "datasets"}),
    (r"login", ("2xx", "2xx", "2xx", "2xx", "3xx"), {}),
    (r"logout", ("3xx", "3xx", "3xx", "3xx", "405"), {}),
    (r"autocomplete", STAFF_REFUSED, {}),  # without its parameters
    (r"view_on_site", ("3xx", "3xx", "3xx", "3xx", "404"), {}),  # no such object
    (r"None", STAFF_ANY, {}),  # unnamed: an object's old address (a redirect), and the catch-all (404)
    (r"\w+", STAFF_ANY, {}),
]


def routes(patterns=None, prefix: str = "", namespace: str | None = None):
    """(name, route regex or path, pattern) of every URL pattern, format-suffix copies left out."""
    for pattern in get_resolver().url_patterns if patterns is None else patterns:
        if isinstance(pattern, URLResolver):
            inner = f"{namespace}:{pattern.namespace}" if namespace and pattern.namespace else pattern.namespace
            yield from routes(pattern.url_patterns, prefix + str(pattern.pattern), inner or namespace)
        elif isinstance(pattern, URLPattern) and "format" not in pattern.pattern.regex.groupindex:
            name = f"{namespace}:{pattern.name}" if namespace else pattern.name
            yield name, prefix + str(pattern.pattern), pattern


def expected_for(name: str) -> tuple[tuple[str, ...], dict] | None:
    if name in ROUTES:
        return ROUTES[name]
    if name.startswith("admin:"):
        for pattern, classes, params in ADMIN_ROUTES:
            if re.fullmatch(pattern, name.removeprefix("admin:")):
                return classes, params
    return None


def fill(route: str, params: dict, world: dict) -> str:
    """The route with its parameters filled from the world (admin routes: any object id, 1)."""
    values = {name: str(world.get(value, value)) for name, value in params.items() if not name.startswith("?")}
    query = "&".join(f"{name[1:]}={world.get(value, value)}" for name, value in params.items() if name.startswith("?"))
    path = route.replace("^", "").replace("$", "")
    while (start := path.find("(?P<")) >= 0:  # a regex group: replace it up to its closing parenthesis
        name = path[start + 4 : path.index(">", start)]
        depth, end = 0, start
        for end in range(start, len(path)):
            depth += {"(": 1, ")": -1}.get(path[end], 0)
            if depth == 0:
                break
        path = path[:start] + values.get(name, "1") + path[end + 1 :]
    path = re.sub(r"<(?:\w+:)?(\w+)>", lambda match: values.get(match.group(1), "1"), path)
    return "/" + path.replace("\\.", ".") + (f"?{query}" if query else "")


@pytest.fixture
def world(django_user_model) -> dict:
    """One object of every kind a route names, and a client per persona."""
    study = make_study_world()
    campaign, review = study.campaign, study.review
    job = BuildJob.objects.create(kind=BuildJob.Kind.COUNT_CORPUS, language="en", status=BuildJob.Status.DONE)
    table = FrequencyTable.objects.create(name="T", language="en", tokens=10, counts={"night owl": 1})
    clients = {persona: Client(enforce_csrf_checks=True) for persona in PERSONAS}
    clients["user"].force_login(django_user_model.objects.create_user("plain", password="pw-123456"))
    curator = django_user_model.objects.create_user("cura", password="pw-123456")
    curator.groups.add(Group.objects.get_or_create(name=CURATORS_GROUP)[0])
    clients["curator"].force_login(curator)
    clients["superuser"].force_login(django_user_model.objects.create_superuser("root", "r@x.org", "pw-123456"))
    crowd = Client()  # enrols through the consent form, then keeps its session
    crowd.get(f"/annotate/{campaign.slug}/start/", PROLIFIC)
    assert crowd.post(f"/annotate/{campaign.slug}/start/", {**PROLIFIC, "agree": "1"}).status_code == 302
    clients["crowd"].cookies = crowd.cookies
    return {
        "clients": clients,
        "compound": review["compound"].pk,
        "sentence": review["natural"].pk,
        "variant": review["synonym"].pk,
        "campaign": campaign.slug,
        "campaign_id": campaign.pk,
        "rating": study.rating.pk,
        "run": study.run.pk,
        "model": study.run.model.name,
        "version": study.release.version,
        "release_pk": study.release.pk,
        "release_file": study.release.files.first().pk,
        "import_run": ImportRun.objects.create(importer="import_ncs", source_dir="/data/ncs").pk,
        "job": job.pk,
        "release_job": ReleaseJob.objects.create(version="9.9.9", status="failed", message="nothing to release").pk,
        "table": table.pk,
        "annotation_job": AnnotationJob.objects.create(
            campaign=campaign,
            model=EmbeddingModel.objects.create(
                name="chatty", kind="openai_chat", source="m", options={"base_url": "https://models.example.org/v1"}
            ),
            template_name="reddy-en",
            template_version=1,
            queue="probe_cpu",
        ).pk,
        "uuid": uuid.uuid4(),
    }


def status_class(code: int, expected: str) -> bool:
    """``expected``: codes ("403") or classes ("2xx"), alternatives joined by "/"."""
    return any(alt == str(code) or (alt.endswith("xx") and alt[0] == str(code)[0]) for alt in expected.split("/"))


@pytest.mark.django_db
def test_every_route_answers_each_persona_as_the_table_says(world):
    missing, wrong = [], []
    for name, route, _ in routes():
        entry = expected_for(name)
        if entry is None:
            missing.append(f"{name} ({route})")
            continue
        classes, params = entry
        url = fill(route, params, world)
        for persona, expected in zip(PERSONAS, classes, strict=True):
            code = world["clients"][persona].get(url).status_code
            if not status_class(code, expected):
                wrong.append(f"GET {url} as {persona}: {code}, expected {expected}")
    assert not missing, "routes without a row in the role matrix:\n" + "\n".join(missing)
    assert not wrong, "\n".join(wrong)


@pytest.mark.django_db
def test_no_route_takes_a_post_without_a_csrf_token(world):
    accepted = []
    for name, route, _ in routes():
        entry = expected_for(name)
        url = fill(route, entry[1] if entry else {}, world)
        for persona in PERSONAS:
            code = world["clients"][persona].post(url, {"agree": "1", **PROLIFIC}).status_code
            if code not in (403, 405):
                accepted.append(f"POST {url} as {persona}: {code}")
    assert not accepted, "\n".join(accepted)
