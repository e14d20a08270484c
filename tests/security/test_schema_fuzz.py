"""Schemathesis against /api/schema/: generated requests find no 500 and no answer the schema does not describe.

Every operation of the schema the server serves is called through the WSGI application, with
valid and invalid data, as an anonymous visitor and as a curator (with a token). Checks: no
server error, every status code and content type documented, every body matching its schema
(nullable fields included). Examples are few and derandomised: the run is short and repeatable.
"""

from __future__ import annotations

import pytest
import schemathesis
from django.core.cache import cache
from django.core.signals import request_finished, request_started
from django.core.wsgi import get_wsgi_application
from django.db import close_old_connections
from hypothesis import HealthCheck, given, settings
from hypothesis.errors import Unsatisfiable
from rest_framework.authtoken.models import Token
from schemathesis import GenerationMode
from schemathesis.checks import not_a_server_error
from schemathesis.core.failures import Failure, FailureGroup
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from annotation.models import FilterPolicy
from annotators.models import AnnotationJob
from probing.models import EmbeddingModel
from tests.building.review_factories import make_curator
from tests.security.study_world import make_study_world

CHECKS = [not_a_server_error, status_code_conformance, content_type_conformance, response_schema_conformance]
EXAMPLES_PER_OPERATION = 5
FUZZ = settings(
    max_examples=EXAMPLES_PER_OPERATION,
    derandomize=True,
    deadline=None,
    database=None,
    suppress_health_check=list(HealthCheck),
)


def seed() -> tuple[str, dict[str, dict]]:
    """Data in every state a page can show (a release, a finished run, a campaign with a rating, nulls).

    Returns a curator's token and, per path prefix, the path parameters of existing objects.
    """
    study = make_study_world()
    release, run, review, campaign = study.release, study.run, study.review, study.campaign
    FilterPolicy.objects.create(name="paper", min_rho=0.2)
    token = Token.objects.create(user=make_curator("fuzzy")).key
    model = EmbeddingModel.objects.create(name="chatty", kind="openai_chat", source="m", options={"base_url": "https://models.example.org/v1"})  # fmt: skip
    job = AnnotationJob.objects.create(campaign=campaign, model=model, template_name="reddy-en", template_version=1, queue="probe_cpu")  # fmt: skip
    version = {"version": release.version, "other": release.version}
    known = {
        "/api/annotation/campaigns/": {"id": campaign.pk},
        "/api/annotation/ratings/": {"id": study.rating.pk},
        "/api/compounds/": {"id": review["compound"].pk},
        "/api/sentences/": {"id": review["natural"].pk},
        "/api/variants/": {"id": review["flagged"].pk},
        "/api/probing/models/": {"name": run.model.name},
        "/api/probing/runs/": {"id": run.pk},
        "/api/annotators/jobs/": {"id": job.pk},
        "/api/releases/": version | {"path": release.files.exclude(path="release.zip").first().path},
    }
    return token, known


def known_objects(path: str, known: dict[str, dict]) -> dict | None:
    """The path parameters of existing objects for an operation on ``path`` (None: it takes none)."""
    if "{" not in path:
        return None
    prefix = next(prefix for prefix in known if path.startswith(prefix))
    return {name: value for name, value in known[prefix].items() if "{" + name + "}" in path}


def fuzz(operation, mode: GenerationMode, headers: dict, path_parameters: dict | None = None) -> None:
    @given(case=operation.as_strategy(generation_mode=mode, path_parameters=path_parameters))
    @FUZZ
    def call(case):
        cache.clear()  # rate limits are tested in test_auth; here every request must reach its view
        case.call_and_validate(headers=headers, checks=CHECKS)

    call()


@pytest.fixture
def wsgi_keeps_the_test_transaction():
    """The WSGI handler closes the database connection after each request (and with it the test's
    transaction); Django's test client stops it the same way."""
    for signal in (request_started, request_finished):
        signal.disconnect(close_old_connections)
    yield
    for signal in (request_started, request_finished):
        signal.connect(close_old_connections)


@pytest.mark.django_db
@pytest.mark.usefixtures("wsgi_keeps_the_test_transaction")
def test_generated_requests_get_documented_answers():
    token, known = seed()
    schema = schemathesis.openapi.from_wsgi("/api/schema/?format=json", get_wsgi_application())
    personas = {"anonymous": {}, "curator": {"Authorization": f"Token {token}"}}
    failures = []
    for result in schema.get_all_operations():
        operation = result.ok()
        # Generated paths mostly name nothing (404): a third pass calls each one on objects that exist.
        passes = [(GenerationMode.POSITIVE, None), (GenerationMode.NEGATIVE, None)]
        if (existing := known_objects(operation.path, known)) is not None:
            passes.append((GenerationMode.POSITIVE, existing))
        for mode, path_parameters in passes:
            for persona, headers in personas.items():
                try:
                    fuzz(operation, mode, headers, path_parameters)
                except Unsatisfiable:
                    continue  # nothing in this operation can be made invalid (no parameters, no body)
                except (Failure, FailureGroup) as found:  # every operation's failures in one report
                    where = "existing objects" if path_parameters else mode.value
                    failures.append(f"{operation.method.upper()} {operation.path} ({where}, {persona}): {found}")
    assert not failures, "\n\n".join(failures)
