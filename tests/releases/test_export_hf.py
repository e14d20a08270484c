"""export_release --format hf: a release's Hugging Face folder, ready for ``datasets.load_dataset`` or the Hub."""

from __future__ import annotations

import csv
import io
import json

import pyarrow.parquet as pq
import pytest
from django.core.management import CommandError

from datasets.formats.ncimp_columns import SCORES_FILE
from releases import actions
from releases.formats import build_files
from releases.models import Release
from tests.datasets.factories import make_dataset
from tests.releases.formats.test_hf_layout import load_every_config
from tests.releases.test_release_commands import run

pytestmark = pytest.mark.django_db


@pytest.fixture
def release() -> Release:
    make_dataset()
    run("create_release", "--release", "1.0.0", "--languages", "en,pt", "--publish")
    return Release.objects.get(version="1.0.0")


def test_it_writes_only_the_hf_folder_and_every_config_loads_as_the_release_holds_it(release, tmp_path):
    out = tmp_path / "hub"
    printed = run("export_release", "--release", "1.0.0", "--out", str(out), "--format", "hf")

    files = release.verified_files()
    hf = {path.removeprefix("hf/"): data for path, data in files.items() if path.startswith("hf/")}
    written = {str(p.relative_to(out)): p.read_bytes() for p in out.rglob("*") if p.is_file()}
    assert written == hf and "README.md" in written and "manifest.json" not in written
    assert all(path in printed for path in hf)

    loaded = load_every_config(out, tmp_path)
    assert loaded.pop("(default)")["config"] == "pairs-en"
    # Olive oil and guarda chuva have no variant: no pairs in Portuguese, so no pairs-pt config.
    assert sorted(loaded) == ["compounds-en", "compounds-pt", "pairs-en", "scores-en", "scores-pt"] + [
        "sentences-en",
        "sentences-pt",
    ]
    pairs = pq.read_table(io.BytesIO(files["tidy/pairs.parquet"])).to_pylist()
    assert loaded["pairs-en"]["rows"] == pairs
    compounds = [json.loads(line) for line in files["tidy/compounds.jsonl"].decode().splitlines()]
    scores = list(csv.DictReader(io.StringIO(files[SCORES_FILE].decode("utf-8"))))
    for language in ("en", "pt"):
        mine = [c for c in compounds if c["language"] == language]
        assert [row["compound"] for row in loaded[f"compounds-{language}"]["rows"]] == [c["text"] for c in mine]
        assert len(loaded[f"sentences-{language}"]["rows"]) == sum(len(c["sentences"]) for c in mine)
        assert len(loaded[f"scores-{language}"]["rows"]) == sum(row["language"] == language for row in scores)
    assert loaded["scores-en"]["types"]["CompositionalityType"] == "double"
    assert loaded["sentences-en"]["types"]["length"] == "int32"


def test_the_default_format_is_still_the_whole_release(release, tmp_path):
    run("export_release", "--release", "1.0.0", "--out", str(tmp_path / "out"))
    assert (tmp_path / "out" / "manifest.json").exists() and (tmp_path / "out" / "release.zip").exists()
    assert (tmp_path / "out" / "hf" / "README.md").exists()


def test_it_refuses_a_folder_that_is_not_empty(release, tmp_path):
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "notes.txt").write_text("mine", encoding="utf-8")
    with pytest.raises(CommandError, match="not an empty folder"):
        run("export_release", "--release", "1.0.0", "--out", str(tmp_path / "out"), "--format", "hf")
    assert [p.name for p in (tmp_path / "out").iterdir()] == ["notes.txt"]


def test_a_release_made_before_the_hf_folder_says_so(tmp_path, monkeypatch):
    make_dataset()

    def without_hf(snapshot, meta):
        return {path: data for path, data in build_files(snapshot, meta).items() if not path.startswith("hf/")}

    monkeypatch.setattr(actions, "build_files", without_hf)
    run("create_release", "--release", "0.9.0", "--languages", "en,pt")
    with pytest.raises(CommandError, match="release 0.9.0 has no hf/ folder"):
        run("export_release", "--release", "0.9.0", "--out", str(tmp_path / "out"), "--format", "hf")
    assert not (tmp_path / "out").exists()


def test_an_unknown_format_is_refused_naming_the_choices(release, tmp_path):
    with pytest.raises(CommandError, match="invalid choice: 'croissant'"):
        run("export_release", "--release", "1.0.0", "--out", str(tmp_path / "out"), "--format", "croissant")
