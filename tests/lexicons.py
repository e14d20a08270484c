"""Lexicon fixtures for the variant-building and release tests, each lexicon opened once per session.

A pytest plugin (``pytest_plugins`` in tests/conftest.py), so that tests in any folder can use them.

Debian's Portuguese thesauri (mythes-pt-pt, mythes-pt-br) may be missing on a developer's
machine, where their tests skip; in CI (CI=true) a missing thesaurus is a failure.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from building.lexicon.base import LexiconUnavailable
from building.lexicon.mythes import MyThesLexicon, default_portuguese_thesauri
from building.lexicon.wordnet import WordNetLexicon, open_wordnet


def in_ci() -> bool:
    return os.environ.get("CI", "").strip().lower() in {"1", "true", "yes"}


@pytest.fixture(scope="session")
def opened_lexicons() -> dict:
    return {}


@pytest.fixture
def mythes_pt() -> list[Path]:
    """Debian's Portuguese MyThes thesauri, pt-PT first."""
    try:
        return default_portuguese_thesauri()
    except LexiconUnavailable as error:
        if in_ci():
            pytest.fail(f"{error} (CI=true: this must not be skipped)", pytrace=False)
        pytest.skip(str(error))


@pytest.fixture
def portuguese_thesaurus(mythes_pt, opened_lexicons) -> MyThesLexicon:
    if "mythes" not in opened_lexicons:
        opened_lexicons["mythes"] = MyThesLexicon(mythes_pt).load()
    return opened_lexicons["mythes"]


@pytest.fixture
def wordnet_lexicon(debian_wordnet, tmp_path_factory, opened_lexicons) -> WordNetLexicon:
    """English WordNet through NLTK (opening it takes seconds, so once per session)."""
    if "wordnet" not in opened_lexicons:
        opened_lexicons["wordnet"] = WordNetLexicon(open_wordnet(tmp_path_factory.mktemp("nltk_data"), debian_wordnet))
    return opened_lexicons["wordnet"]
