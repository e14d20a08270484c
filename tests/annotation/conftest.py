"""Fixtures of the annotation tests: a local stand-in for Prolific's API, and another host it must never reach."""

from tests.annotation.fake_prolific import elsewhere, fake_prolific  # noqa: F401
