"""Fixtures of the review pages and API tests: a compound with variants to review, and Alice, a curator."""

from __future__ import annotations

import pytest

from tests.building.review_factories import make_curator, make_review_compound


@pytest.fixture
def data():
    return make_review_compound()


@pytest.fixture
def alice():
    return make_curator("alice")


@pytest.fixture
def curator_client(client, alice):
    client.force_login(alice)
    return client
