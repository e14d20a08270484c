"""Which commit a benchmark line names, also on a machine without git (a GPU host given a copy of the checkout)."""

from __future__ import annotations

import subprocess

from benchmarks import record


def test_the_commit_is_git_s_and_without_git_the_one_the_copy_was_made_from(monkeypatch):
    assert (
        record.commit().split("-")[0]
        == subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], cwd=record.ROOT, capture_output=True, text=True, check=True
        ).stdout.strip()
    )

    def no_git(*args, **kwargs):
        raise FileNotFoundError("git")

    monkeypatch.setattr(record.subprocess, "run", no_git)
    monkeypatch.delenv("BENCHMARK_COMMIT", raising=False)
    assert record.commit() == "unknown"
    monkeypatch.setenv("BENCHMARK_COMMIT", "abc1234")
    assert record.commit() == "abc1234"
