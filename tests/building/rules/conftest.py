"""The Portuguese morphology from Debian's hunspell-pt-pt, loaded once for the rules' tests."""

import os
from pathlib import Path

import pytest

from building.lexicon.portuguese_morphology import DEFAULT_PATHS, PortugueseMorphology, load_morphology


@pytest.fixture(scope="session")
def pt_morphology() -> PortugueseMorphology:
    path: Path = DEFAULT_PATHS[0]
    if not path.is_file():
        reason = f"{path} is missing (apt-get install hunspell-pt-pt, or bash scripts/install.sh)"
        if os.environ.get("CI"):
            pytest.fail(reason)  # scripts/install.sh installs it: in CI its absence is a failure
        pytest.skip(reason)
    return load_morphology(path)
