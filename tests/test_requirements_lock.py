"""The hashed lock files (requirements/lock/) match the top-level pins, and the check catches a stale one.

The same check is the "lock up to date" step of scripts/test.sh; offline, no pip involved.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from scripts.requirements_lock import ROOT, SETS, lock_path, problems, read_lock, top_level_lines

# The CPU wheel's sha256, the same on PyTorch's CPU index and in this machine's /opt/wheels.
TORCH_CPU = ("==2.13.0+cpu", ["sha256:6746dbcbeb526eb61330b76b41ff1b4eb848951103a892eeb080dfa2b264667b"])


@pytest.fixture
def copy(tmp_path) -> Path:
    """requirements/ with its locks, copied: the tests below break the copy, never the repository."""
    shutil.copytree(ROOT / "requirements", tmp_path / "requirements")
    return tmp_path


def edit(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text, f"{old!r} not in {path}"
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


def test_the_locks_match_the_top_level_requirements():
    found = problems(ROOT)
    assert not found, "\n".join(found)


@pytest.mark.parametrize("name", SETS)
def test_every_locked_package_has_one_exact_version_and_sha256_hashes(name):
    _, entries = read_lock(lock_path(ROOT, name))
    top = {
        re.split(r"[=<>!~;\[ ]", line, maxsplit=1)[0].lower()
        for line in top_level_lines(ROOT / f"requirements/{name}.txt")
    }
    assert len(entries) > len(top)  # the transitive packages are there too
    for package, (spec, hashes) in entries.items():
        assert re.fullmatch(r"==[\w.+!-]+", spec), (package, spec)
        assert hashes and all(re.fullmatch(r"sha256:[0-9a-f]{64}", h) for h in hashes), package


@pytest.mark.parametrize("name", ["ml", "dev"])
def test_torch_is_the_2_13_0_cpu_build_and_nothing_cuda_comes_with_it(name):
    _, entries = read_lock(lock_path(ROOT, name))
    assert entries["torch"] == TORCH_CPU
    assert not [p for p in entries if p.startswith(("nvidia-", "cuda-", "triton"))]


def test_the_web_lock_has_no_torch_and_the_dev_lock_has_pip_tools():
    assert "torch" not in read_lock(lock_path(ROOT, "base"))[1]
    assert "pip-tools" in read_lock(lock_path(ROOT, "dev"))[1]


def test_a_changed_pin_makes_every_lock_that_includes_it_stale(copy):
    django = next(line for line in top_level_lines(copy / "requirements/base.txt") if line.startswith("Django=="))
    edit(copy / "requirements/base.txt", django, "Django==5.1.0")

    found = problems(copy)

    locked = django.split("==")[1]
    assert f"requirements/lock/base.txt: Django is locked at {locked}, the requirements ask ==5.1.0" in found
    for name in SETS:  # ml and dev include base
        assert (
            f"requirements/{name}.txt (or a file it includes) changed since requirements/lock/{name}.txt was made"
            in found
        )
    assert found[-1].startswith("refresh the locks with `make lock`")


def test_a_new_top_level_package_must_be_locked(copy):
    edit(copy / "requirements/dev.txt", "-r ml.txt\n", "-r ml.txt\nleftpad-nonexistent==1.0\n")

    assert "requirements/lock/dev.txt: leftpad-nonexistent is not locked (leftpad-nonexistent==1.0)" in problems(copy)


def test_a_comment_edit_needs_no_new_lock(copy):
    edit(copy / "requirements/base.txt", "\n", "\n# a note about these pins\n")

    assert problems(copy) == []


def test_a_lock_entry_without_its_hash_or_with_cuda_torch_fails(copy):
    lock = copy / "requirements/lock/ml.txt"
    _, entries = read_lock(lock)
    scipy_version = entries["scipy"][0][2:]
    text = lock.read_text(encoding="utf-8")
    # scipy's entry without its --hash lines; torch as PyPI's CUDA build, with one of its packages.
    text = re.sub(rf"scipy=={re.escape(scipy_version)} \\\n(\s+--hash=\S+( \\)?\n)+", f"scipy=={scipy_version}\n", text)
    text = text.replace("torch==2.13.0+cpu", "torch==2.13.0")
    text += "nvidia-cublas==13.1.0.3 --hash=sha256:" + "0" * 64 + "\n"
    lock.write_text(text, encoding="utf-8")

    found = problems(copy)

    assert f"requirements/lock/ml.txt: scipy=={scipy_version} has no --hash" in found
    assert "requirements/lock/ml.txt: torch 2.13.0 is not the CPU build (+cpu): it pulls GBs of CUDA" in found
    assert (
        "requirements/lock/ml.txt: nvidia-cublas is a CUDA package; the workbench locks the CPU build of torch" in found
    )
    assert any(line.startswith("torch has different versions in the locks") for line in found)


def test_a_missing_lock_is_named(copy):
    lock_path(copy, "dev").unlink()

    assert "requirements/lock/dev.txt is missing: run `make lock`" in problems(copy)
