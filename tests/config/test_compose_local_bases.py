"""The compose check's override changes base images and the torch index, nothing users run (issue 35, item 1).

scripts/compose_check.sh builds the production ``docker/Dockerfile`` and starts ``docker/compose.yml``;
where Docker Hub or the PyTorch index cannot be reached it adds ``docker/compose.local-bases.yml``. These
tests keep that override to images and build arguments, and keep the Dockerfile's defaults what a user
without the override gets.
"""

from __future__ import annotations

import re
from pathlib import Path

import yaml

DOCKER = Path(__file__).resolve().parents[2] / "docker"
APP_SERVICES = {"web", "worker", "beat"}


def load(name: str) -> dict:
    return yaml.safe_load((DOCKER / name).read_text())


def test_the_override_sets_only_base_images_and_build_arguments():
    compose, override = load("compose.yml"), load("compose.local-bases.yml")
    assert set(override) <= {"services"} | {key for key in override if key.startswith("x-")}
    services = override["services"]
    assert set(services) == set(compose["services"])
    for name in ("db", "redis"):
        assert set(services[name]) == {"image"} and services[name]["image"].startswith("workbench-bases/")
    for name in APP_SERVICES:
        assert set(services[name]) == {"build"} and set(services[name]["build"]) == {"args"}
        assert set(services[name]["build"]["args"]) == {"PYTHON_IMAGE", "TORCH_INDEX_URL", "TORCH_TRUSTED_HOST"}
        assert services[name]["build"]["args"]["PYTHON_IMAGE"] == "workbench-bases/python:3.11-bookworm"


def test_every_build_argument_of_the_override_is_declared_by_the_dockerfile_with_the_public_default():
    dockerfile = (DOCKER / "Dockerfile").read_text()
    declared = dict(re.findall(r"^ARG (\w+)=(.*)$", dockerfile, flags=re.MULTILINE))
    assert declared == {
        "PYTHON_IMAGE": "python:3.11-slim-bookworm",
        "TORCH_INDEX_URL": "https://download.pytorch.org/whl/cpu",
        "TORCH_TRUSTED_HOST": "",
    }
    assert re.search(r"^FROM \$\{PYTHON_IMAGE\}$", dockerfile, flags=re.MULTILINE)
    # torch from that index only, hash-checked; a trusted host only when one is given
    assert '--require-hashes --no-deps --index-url "${TORCH_INDEX_URL}"' in dockerfile
    assert '${TORCH_TRUSTED_HOST:+--trusted-host "${TORCH_TRUSTED_HOST}"}' in dockerfile


def test_the_base_images_the_override_names_are_the_ones_docker_bases_builds():
    images = {
        service["image"] for service in load("compose.local-bases.yml")["services"].values() if "image" in service
    }
    images |= {"workbench-bases/python:3.11-bookworm"}
    built = {f"workbench-bases/{path.stem.split('.')[0]}" for path in (DOCKER / "bases").glob("*.Dockerfile")}
    assert {image.split(":")[0] for image in images} == built
    script = (DOCKER.parent / "scripts" / "compose_check.sh").read_text()
    for image in images:
        assert image.removeprefix("workbench-bases/") in script  # the tag the script builds
