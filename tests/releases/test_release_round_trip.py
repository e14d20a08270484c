"""Round trips: export, import into an empty database, export again gives the same data files.

Run with ``-s`` to see the manifests' checksums (they go into the release notes).
"""

from __future__ import annotations

import csv
import io
import json
from collections import Counter
from io import StringIO
from pathlib import Path, PurePosixPath

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command

from building.variants.curation import approve_unflagged, edit_variant, reject_variant
from datasets import vocabulary
from datasets.formats.ncimp_columns import COPIES, SCORES_COLUMNS, SCORES_FILE
from datasets.models import Collection, Compound, Variant
from releases.actions import create_release, export_release
from releases.formats import is_data_file
from releases.import_actions import import_release
from releases.models import Release

pytestmark = pytest.mark.django_db

NCIMP_FILES = [f"naturalistics_examplesent{k}.csv" for k in (1, 2, 3)] + ["neutral.csv"]


@pytest.fixture
def lexical_resources(debian_wordnet, mythes_pt, settings, tmp_path_factory):
    """Real WordNet and MyThes (the demo's variants are generated from them); a private NLTK data folder."""
    settings.WORDNET_DIR = debian_wordnet
    settings.NLTK_DATA_DIR = tmp_path_factory.getbasetemp() / "nltk_data"
    settings.MYTHES_PT = mythes_pt


def data_checksums(release: Release) -> dict[str, str]:
    return {f["path"]: f["sha256"] for f in release.manifest["files"] if is_data_file(f["path"])}


def wipe_the_dataset() -> None:
    """An empty dataset, as in a fresh database (releases stay: they are what we compare)."""
    Compound.objects.all().delete()
    Collection.objects.all().delete()


def show(title: str, release: Release) -> None:
    print(f"\n{title}: release {release.version}, manifest.json sha256 {release.checksum}")
    for entry in release.manifest["files"]:
        print(f"  {entry['path']:<36} {entry['sha256']}  {entry['bytes']:>8}")


def curate_the_demo(carol) -> None:
    """Approve the unflagged variants of every other compound, reject one, edit one; the rest stays pending."""
    for n, compound in enumerate(Compound.objects.order_by("language", "key")):
        if n % 2 == 0:
            approve_unflagged(compound, carol)
    approved = Variant.objects.filter(status=vocabulary.APPROVED, isolated=False).order_by("pk")
    reject_variant(approved[0], carol, "not a paraphrase")
    edited = approved[1]
    start, end = edited.span_start, edited.span_end
    edit_variant(edited, carol, f"{edited.text[:start]}[{edited.text[start:end]} thing]{edited.text[end:]}")


def test_the_demo_release_survives_export_and_import_byte_for_byte(lexical_resources, tmp_path):
    call_command("load_demo", stdout=StringIO())
    call_command("generate_variants", "--language", "en", stdout=StringIO())
    call_command("generate_variants", "--language", "pt", stdout=StringIO())
    carol = get_user_model().objects.create_user("carol")
    curate_the_demo(carol)
    included = Variant.objects.filter(status__in=[vocabulary.APPROVED, vocabulary.EDITED]).count()
    assert Variant.objects.filter(status=vocabulary.GENERATED).exists()

    first = create_release("1.0.0", ["en", "pt"], user=carol, publish=True)
    export_release(first, tmp_path / "1.0.0")
    wipe_the_dataset()
    imported = import_release(tmp_path / "1.0.0")
    second = create_release("1.0.1", ["en", "pt"], collections=[imported.collection], user=carol, publish=True)
    export_release(second, tmp_path / "1.0.1")

    show("demo", first)
    show("demo after import", second)
    assert sum(sum(lang["variants"].values()) for lang in first.counts.values()) == included
    assert first.counts == second.counts
    assert data_checksums(first) == data_checksums(second)
    assert len(data_checksums(first)) >= 10
    for path in data_checksums(first):
        assert (tmp_path / "1.0.0" / path).read_bytes() == (tmp_path / "1.0.1" / path).read_bytes()
    # The version and date live in the metadata files only.
    assert first.checksum != second.checksum


def table(data: bytes) -> tuple[list[str], dict[str, list[str]]]:
    header, *rows = list(csv.reader(io.StringIO(data.decode("utf-8"))))
    by_compound = {row[0]: row for row in rows}
    assert len(by_compound) == len(rows), "one row per compound"
    return header, by_compound


def compare_ncimp(public: Path, ours: Path) -> dict[str, Counter]:
    """Per file: differing cells per column; asserts same header, same compounds, and only documented changes."""
    differences = {}
    for name in NCIMP_FILES:
        public_header, public_rows = table((public / name).read_bytes())
        our_header, our_rows = table((ours / name).read_bytes())
        assert our_header == public_header, name
        assert set(our_rows) == set(public_rows), name
        cells = Counter()
        for compound, row in public_rows.items():
            for column, theirs, mine in zip(public_header, row, our_rows[compound], strict=True):
                if theirs != mine:
                    cells[column] += 1
                    # Documented (releases.formats.ncimp_writer): a copy column repeats the
                    # sentence, so the public files' trailing spaces there are not kept.
                    assert column in COPIES and theirs.strip() == mine.strip(), (name, compound, column)
        differences[name] = cells
    return differences


def test_the_public_portuguese_ncimp_files_come_back_with_the_same_rows_and_cells(shared_data, tmp_path):
    public = shared_data / "ncimp" / "PT"
    call_command("import_ncimp", str(public), "--language", "pt", "--collection", "ncimp-pt", stdout=StringIO())
    first = create_release("1.0.0", ["pt"], publish=True)
    export_release(first, tmp_path / "1.0.0")

    differences = compare_ncimp(public, tmp_path / "1.0.0" / "PT")

    wipe_the_dataset()
    imported = import_release(tmp_path / "1.0.0")
    second = create_release("1.0.1", ["pt"], collections=[imported.collection], publish=True)
    export_release(second, tmp_path / "1.0.1")

    show("NCIMP PT", first)
    show("NCIMP PT after import", second)
    for name, cells in differences.items():
        rows = len(table((public / name).read_bytes())[1])
        print(f"  {name}: {rows} rows, cells differing from the public file: {dict(cells) or 0}")
    assert first.counts == {
        "pt": {
            "compounds": 180,
            # The classes come from human_compositionality_scores.csv, found beside the PT folder.
            "classes": {vocabulary.IDIOMATIC: 50, vocabulary.PARTLY: 75, vocabulary.COMPOSITIONAL: 55},
            "sentences": 900,
            "variants": first.counts["pt"]["variants"],
        }
    }
    assert data_checksums(first) == data_checksums(second)
    # Only "entire neutral sentence" loses trailing spaces; the naturalistic files match cell for cell.
    assert all(not differences[name] for name in NCIMP_FILES[:3])


def score_rows(data: bytes, language: str) -> dict[tuple[str, str], dict[str, str]]:
    """Rows of a human scores table for ``language``, keyed by (NCIMP file name, compound)."""
    rows = csv.DictReader(io.StringIO(data.decode("utf-8")))
    return {(PurePosixPath(r["file"]).name, r["compound"]): r for r in rows if r["language"] == language}


def same_cell(column: str, theirs: str, mine: str) -> bool:
    if column == "file":  # the public table names its own repository's paths; ours name the release's files
        return PurePosixPath(theirs).name == PurePosixPath(mine).name
    if SCORES_COLUMNS[column][0] in ("number", "integer") and theirs and mine:
        return float(theirs) == float(mine)
    return theirs == mine


def test_the_public_portuguese_scores_table_comes_back_in_every_column(shared_data, tmp_path):
    public_table = shared_data / "ncimp" / SCORES_FILE
    summary = StringIO()
    call_command("import_ncimp", str(shared_data / "ncimp" / "PT"), "--language", "pt", "--json", stdout=summary)
    # The public table's one bad cell: má-fé's rows have an empty Type.
    assert json.loads(summary.getvalue())["warnings"]["wrong Type"] == 4
    export_release(create_release("1.0.0", ["pt"], publish=True), tmp_path / "1.0.0")

    public = score_rows(public_table.read_bytes(), "pt")
    ours = score_rows((tmp_path / "1.0.0" / SCORES_FILE).read_bytes(), "pt")
    assert set(ours) == set(public) and len(public) == 4 * 180
    differing = Counter()
    for key, row in public.items():
        for column in SCORES_COLUMNS:
            if not same_cell(column, row[column], ours[key][column]):
                differing[column] += 1
                assert (column, row[column], key[1]) == ("Type", "", "má-fé"), (
                    key,
                    column,
                    row[column],
                    ours[key][column],
                )
    print(f"\nPT scores table, {len(public)} rows: cells differing from the public table per column:")
    for column in SCORES_COLUMNS:
        print(f"  {column:<32} {differing[column]}")
    assert differing == Counter({"Type": 4})
