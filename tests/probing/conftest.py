"""Probing tests build their models in pytest's temporary folders: list those as model folders.

An administrator lists the folders models load from (WORKBENCH_MODEL_DIRS); these tests stand
in for one who listed the test run's temporary folder. tests/security checks the refusals. The
fixture ELMo is read where it lies, in ../shared/fixtures/elmo (``elmo_loadable`` lists it too).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from core.paths import real_path


@pytest.fixture(autouse=True)
def models_load_from_the_test_folders(settings, tmp_path_factory):
    settings.WORKBENCH_MODEL_DIRS = [*settings.WORKBENCH_MODEL_DIRS, real_path(tmp_path_factory.getbasetemp())]


@pytest.fixture
def fixture_elmo(shared_fixtures) -> Path:
    """The tiny ELMo of ../shared/fixtures/elmo: options.json, lm_weights.hdf5 and bilm-tf's outputs."""
    return shared_fixtures / "elmo"


@pytest.fixture
def elmo_loadable(fixture_elmo, settings) -> Path:
    """The fixture ELMo's folder, listed by the administrator (WORKBENCH_MODEL_DIRS)."""
    settings.WORKBENCH_MODEL_DIRS = [*settings.WORKBENCH_MODEL_DIRS, real_path(fixture_elmo)]
    return fixture_elmo


@pytest.fixture
def p_for_five_compounds(monkeypatch):
    """The report factory has five compounds, below the minimum n for a p-value (formatting.MIN_N): tests about
    how p and significance are printed lower the minimum for the factory (the minimum's own tests keep it)."""
    from probing.report import formatting

    monkeypatch.setattr(formatting, "MIN_N", 3)
