"""croissant.json: mlcroissant validates it and loads every table of a release folder, offline; its
Responsible-AI fields say what the card's "Responsible use" section says; machine-made ratings are labelled."""

from __future__ import annotations

import csv
import dataclasses
import hashlib
import io
import json
import re
import socket

import mlcroissant as mlc
import pyarrow.parquet as pq
import pytest

from releases.formats import build_files
from releases.formats.croissant import CONFORMS_TO, build_croissant, field_id
from releases.formats.deposit import NO_CREATORS
from releases.formats.hf import hf_table_paths
from releases.formats.machine import MACHINE_JSONL, MACHINE_NOTE, MACHINE_PARQUET
from releases.formats.manifest import with_manifest
from releases.formats.meta import CROISSANT, Creator, ReleaseMeta
from releases.formats.rai import responsible_ai
from releases.formats.score_sources import SIMULATED_NOTE
from releases.snapshot import CampaignSource, ScoreInfo
from tests.releases.formats.test_machine_ratings_files import INVALID, answer
from tests.releases.formats.test_release_card import table, with_campaign
from tests.releases.formats.test_release_files import write_folder

# mlcroissant's own libraries' deprecation notices, not validation warnings (those are asserted below).
pytestmark = [
    pytest.mark.filterwarnings("ignore:ConjunctiveGraph is deprecated"),
    pytest.mark.filterwarnings("ignore:The inplace keyword in DataFrame.reset_index is deprecated"),
]

# The card's "Responsible use" lines (rai.card_section) and the RAI properties written from the same facts.
CARD_TO_RAI = {
    "Data collection": "rai:dataCollection",
    "Annotation protocol": "rai:dataAnnotationProtocol",
    "Annotation platforms": "rai:dataAnnotationPlatform",
    "Filtering and agreement": "rai:dataAnnotationAnalysis",
    "Annotator demographics": "rai:annotatorDemographics",
    "Preprocessing": "rai:dataPreprocessingProtocol",
    "Machine annotation": "rai:machineAnnotationTools",
    "Intended use": "rai:dataUseCases",
    "Limitations": "rai:dataLimitations",
    "Biases": "rai:dataBiases",
    "Personal and sensitive information": "rai:personalSensitiveInformation",
}
NO_PLATFORM = "none (no campaign's ratings)"
CROWD = CampaignSource(
    "crowd-token",
    "token",
    12,
    0,
    360,
    platforms=("prolific", "local"),
    pay_per_rating="0.15 GBP",
    consent=True,
    allocation="fixed",
    ratings_per_item=10,
)
# The only warnings mlcroissant 1.1.1 gives, and only for a release whose curator gave no citation and no
# date: accepted, because Croissant cannot say what the curator did not (the card says "No citation given"),
# and inventing either would be worse. A release made by the form has a date; with a citation it gets none.
BARE_WARNINGS = {
    'Property "https://schema.org/datePublished" is recommended, but does not exist.',
    'Property "http://mlcommons.org/croissant/citeAs" is recommended, but does not exist.',
}


@pytest.fixture
def offline(monkeypatch):
    """No connection leaves the test: mlcroissant must read the release from its folder alone."""

    def refuse(*args, **kwargs):
        raise OSError("the Croissant tests run offline")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)


def test_the_offline_guard_refuses_a_connection(offline):
    with pytest.raises(OSError, match="offline"):
        socket.create_connection(("127.0.0.1", 9))


def croissant(files: dict[str, bytes]) -> dict:
    return json.loads(files[CROISSANT])


def load(tmp_path, files: dict[str, bytes], meta: ReleaseMeta) -> mlc.Dataset:
    folder = write_folder(tmp_path / "release", with_manifest(files, meta))
    return mlc.Dataset(jsonld=folder / CROISSANT)


def records(dataset: mlc.Dataset, table_name: str) -> list[dict]:
    """A RecordSet's records keyed by column name, text as str (mlcroissant gives sc:Text as bytes)."""

    def plain(value):
        if isinstance(value, bytes):
            return value.decode("utf-8")
        if isinstance(value, list):
            return [plain(v) for v in value]
        if isinstance(value, dict):
            return {key.rsplit("/", 1)[1]: plain(v) for key, v in value.items()}
        return value

    names = {f.uuid: f.name for rs in dataset.metadata.record_sets for f in rs.fields}
    rows = [dict(r) for r in dataset.records(record_set=table_name)]
    return [{names[key]: plain(value) for key, value in row.items()} for row in rows]


def jsonl(data: bytes) -> list[dict]:
    return [json.loads(line) for line in data.decode().splitlines()]


def responsible_use(card: str) -> dict[str, str]:
    """Title → text of each line of the card's "Responsible use" section."""
    section = card.split("## Responsible use\n", 1)[1].split("\n## ", 1)[0]
    return dict(re.findall(r"^\*\*(.+?)\.\*\* (.+)$", section, flags=re.MULTILINE))


def test_it_validates_and_every_table_loads_offline_as_the_release_files_hold_it(
    tmp_path, offline, release_snapshot, release_meta
):
    files = build_files(release_snapshot, release_meta)
    dataset = load(tmp_path, files, release_meta)
    assert dataset.metadata.ctx.issues.errors == set()
    assert dataset.metadata.ctx.issues.warnings == set()
    assert {rs.uuid for rs in dataset.metadata.record_sets} == {"compounds", "sentences", "pairs", "scores"}

    pairs = pq.read_table(io.BytesIO(files["tidy/pairs.parquet"])).to_pylist()
    assert records(dataset, "pairs") == pairs  # every row, every column, typed: spans as lists of ints
    compounds = jsonl(files["tidy/compounds.jsonl"])
    loaded = records(dataset, "compounds")
    assert [(c["language"], c["compound"], c["type_score"], c["gold_synonym"]) for c in loaded] == [
        (c["language"], c["text"], c["type_score"], c["gold_synonym"]) for c in compounds
    ]
    assert [c["paraphrases"] for c in loaded] == [c["paraphrases"] for c in compounds]
    sentences = records(dataset, "sentences")
    assert [(s["compound"], s["sentence_id"], s["text"], [s["span_start"], s["span_end"]]) for s in sentences] == [
        (c["text"], s["id"], s["text"], s["span"]) for c in compounds for s in c["sentences"]
    ]
    scores = table(files["human_compositionality_scores.csv"])
    loaded = records(dataset, "scores")
    assert len(loaded) == len(scores) == 8
    for row, cells in zip(loaded, scores, strict=True):
        assert {name: "" if value is None else value for name, value in row.items()} == {
            name: cell if not isinstance(row[name], int | float) else type(row[name])(float(cell))
            for name, cell in cells.items()
        }


def test_every_file_but_itself_and_the_manifest_is_listed_with_its_checksum(release_snapshot, release_meta):
    files = with_manifest(build_files(release_snapshot, release_meta), release_meta)
    # Built again from the whole folder, manifest and all, it lists the same files: the same bytes.
    assert build_croissant(files, release_snapshot, release_meta) == files[CROISSANT]
    document = croissant(files)
    objects = {d["contentUrl"]: d for d in document["distribution"] if d["@type"] == "cr:FileObject"}
    assert set(objects) == set(files) - {CROISSANT, "manifest.json"}
    for path, entry in objects.items():
        assert entry["sha256"] == hashlib.sha256(files[path]).hexdigest(), path
        assert entry["contentSize"] == f"{len(files[path])} B"
    assert objects["tidy/pairs.parquet"]["encodingFormat"] == "application/x-parquet"
    assert objects["EN/neutral.csv"]["encodingFormat"] == "text/csv"
    manifest = json.loads(files["manifest.json"])
    assert CROISSANT in {f["path"] for f in manifest["files"]}
    assert f"- `{CROISSANT}`: Croissant 1.1 metadata" in files["README.md"].decode()


def test_each_table_is_a_file_set_and_a_record_set_typed_from_its_parquet_schema(release_snapshot, release_meta):
    files = build_files(release_snapshot, release_meta)
    document = croissant(files)
    sets = {d["@id"]: d for d in document["distribution"] if d["@type"] == "cr:FileSet"}
    assert {s["includes"] for s in sets.values()} == {f"hf/{t}/*.parquet" for t in hf_table_paths(files)}
    record_sets = {r["@id"]: r for r in document["recordSet"]}
    for name, paths in hf_table_paths(files).items():
        schema = pq.read_schema(io.BytesIO(files[paths[0]]))
        assert [f["name"] for f in record_sets[name]["field"]] == schema.names
    fields = {f["@id"]: f for r in record_sets.values() for f in r["field"]}
    assert fields["pairs/rank"]["dataType"] == "sc:Integer"
    assert fields["pairs/plural"]["dataType"] == "sc:Boolean"
    assert fields["pairs/type_score"]["dataType"] == "sc:Float"
    assert (fields["pairs/original_span"]["dataType"], fields["pairs/original_span"]["isArray"]) == ("sc:Integer", True)
    assert [f["name"] for f in fields["compounds/paraphrases"]["subField"]] == ["level", "slot", "text", "frequency"]
    assert fields[field_id("scores", "MWE Synonym Overlap")]["name"] == "MWE Synonym Overlap"
    assert record_sets["pairs"]["key"][:2] == [{"@id": "pairs/language"}, {"@id": "pairs/compound"}]
    assert fields["pairs/language"]["description"] == "Language code (en, pt)."


def rai_and_card(files: dict[str, bytes]) -> tuple[dict, dict[str, str]]:
    return croissant(files), responsible_use(files["README.md"].decode())


@pytest.mark.parametrize("crowd", [True, False], ids=["crowd campaign", "reference scores"])
def test_each_responsible_ai_field_is_the_cards_sentence(crowd, release_snapshot, release_meta):
    if crowd:
        snapshot = with_campaign(release_snapshot, CROWD)
    else:
        snapshot = dataclasses.replace(release_snapshot, scores=ScoreInfo(source="reference"), agreement=())
    meta = dataclasses.replace(release_meta, intended_use="Probing.", limitations="Small.", biases="Few compounds.")
    document, card = rai_and_card(build_files(snapshot, meta))
    assert set(card) == set(CARD_TO_RAI) - {"Machine annotation"}
    for title, text in card.items():
        value = document.get(CARD_TO_RAI[title])
        if title == "Annotation platforms" and text == NO_PLATFORM:
            assert value is None
        else:
            assert (", ".join(value) if isinstance(value, list) else value) == text, title
    facts = responsible_ai(snapshot, meta)
    assert document["rai:dataCollectionType"] == list(facts.collection_types)
    assert document["conformsTo"] == CONFORMS_TO
    if crowd:
        assert document["rai:dataAnnotationPlatform"] == ["local accounts of the workbench", "Prolific"]
        assert "paid 0.15 GBP per rating" in document["rai:dataCollection"]
        assert "Crowdsourcing" in document["rai:dataCollectionType"]
    else:
        assert card["Annotation platforms"] == NO_PLATFORM
        assert "no new ratings were collected" in document["rai:dataLimitations"]
    assert document["rai:dataUseCases"].startswith("Probing. ")


def test_creators_and_the_doi_are_named_when_given(tmp_path, offline, release_snapshot, release_meta):
    meta = dataclasses.replace(
        release_meta,
        creators=(Creator("Ana Sousa", "Universidade X", "0000-0002-1825-0097"), Creator("Bo Li")),
        url="https://workbench.example/releases/1.2.0/",
    ).with_doi("10.5281/zenodo.1234567", previous_doi="10.5281/zenodo.1234500")
    files = build_files(release_snapshot, meta)
    document = croissant(files)
    assert document["creator"] == [
        {
            "@type": "sc:Person",
            "name": "Ana Sousa",
            "affiliation": {"@type": "sc:Organization", "name": "Universidade X"},
            "sameAs": "https://orcid.org/0000-0002-1825-0097",
        },
        {"@type": "sc:Person", "name": "Bo Li"},
    ]
    assert document["identifier"] == "https://doi.org/10.5281/zenodo.1234567"
    assert document["sameAs"] == ["https://doi.org/10.5281/zenodo.1234567"]
    assert document["isBasedOn"] == "https://doi.org/10.5281/zenodo.1234500"
    assert document["url"] == "https://workbench.example/releases/1.2.0/"
    assert (document["version"], document["datePublished"]) == ("1.2.0", "2025-03-01")
    assert document["license"] == "https://creativecommons.org/licenses/by/4.0/"
    assert document["citeAs"] == "Doe, J. (2025). Idiomaticity probes 1.2.0."
    assert document["inLanguage"] == ["en", "pt"]
    dataset = load(tmp_path, files, meta)
    assert (dataset.metadata.ctx.issues.errors, dataset.metadata.ctx.issues.warnings) == (set(), set())


def test_a_release_without_creators_is_credited_as_its_deposit_is(release_snapshot, release_meta):
    meta = dataclasses.replace(release_meta, creators=(), url="")
    document = croissant(build_files(release_snapshot, meta))
    assert document["creator"] == [{"@type": "sc:Organization", "name": NO_CREATORS}]
    assert "identifier" not in document and "sameAs" not in document and "isBasedOn" not in document


def test_a_bare_release_is_still_valid_with_only_the_warnings_we_accept(tmp_path, offline, release_snapshot):
    meta = ReleaseMeta(version="1.0.0")
    dataset = load(tmp_path, build_files(release_snapshot, meta), meta)
    assert dataset.metadata.ctx.issues.errors == set()
    # Each warning names its node first ("[Metadata(title)] …").
    assert {re.sub(r"^\[.*?\] ", "", w) for w in dataset.metadata.ctx.issues.warnings} == BARE_WARNINGS
    assert len(list(dataset.records(record_set="pairs"))) == 26


def test_machine_made_ratings_are_labelled_and_load_as_their_table_holds_them(
    tmp_path, offline, release_snapshot, release_meta
):
    machine = (answer(sentence=("naturalistic", 2), **INVALID), answer(), answer(sample=2, annotator="tiny · 2"))
    snapshot = dataclasses.replace(release_snapshot, machine_ratings=machine)
    files = build_files(snapshot, release_meta)
    document, card = rai_and_card(files)
    assert document["description"].endswith(MACHINE_NOTE)
    assert document["rai:machineAnnotationTools"] == card["Machine annotation"]
    assert document["rai:machineAnnotationTools"].startswith("MACHINE-MADE ratings included: 3 answers")
    assert "Machine-generated" in document["rai:dataCollectionType"]
    assert "Machine-made ratings are included" in document["rai:dataLimitations"]
    machine_set = next(r for r in document["recordSet"] if r["@id"] == "machine_ratings")
    assert machine_set["description"].startswith("MACHINE-MADE ratings")
    dataset = load(tmp_path, files, release_meta)
    assert dataset.metadata.ctx.issues.errors == set()
    loaded = records(dataset, "machine_ratings")
    assert loaded == pq.read_table(io.BytesIO(files[MACHINE_PARQUET])).to_pylist()
    assert [row["annotator_origin"] for row in loaded] == ["machine"] * 3
    assert [row["valid"] for row in jsonl(files[MACHINE_JSONL])] == [row["valid"] for row in loaded]


def test_without_the_opt_in_nothing_is_said_of_machines(release_snapshot, release_meta):
    document = croissant(build_files(release_snapshot, release_meta))
    assert "rai:machineAnnotationTools" not in document
    assert "machine_ratings" not in {r["@id"] for r in document["recordSet"]}
    assert "Machine-generated" not in document["rai:dataCollectionType"]


def test_simulated_ratings_are_labelled_in_the_name_description_and_limitations(release_snapshot, release_meta):
    simulated = with_campaign(release_snapshot, CampaignSource("demo-token", "token", 0, 6, 207))
    document = croissant(build_files(simulated, release_meta))
    assert document["name"] == "Idiomaticity probes (includes simulated ratings)"
    assert SIMULATED_NOTE in document["description"]
    assert SIMULATED_NOTE in document["rai:dataLimitations"]
    assert "6 SIMULATED annotators" in document["rai:dataCollection"]


def test_the_same_release_gives_the_same_bytes(release_snapshot, release_meta):
    first = build_files(release_snapshot, release_meta)[CROISSANT]
    again = build_files(dataclasses.replace(release_snapshot, compounds=release_snapshot.compounds[::-1]), release_meta)
    assert first == again[CROISSANT]
    text = first.decode()
    assert text.endswith("}\n") and text.startswith('{\n  "@context": {')
    assert text == json.dumps(json.loads(text), ensure_ascii=False, indent=2, sort_keys=True) + "\n"


def test_a_changed_file_changes_its_checksum_in_croissant(release_snapshot, release_meta):
    compounds = list(release_snapshot.compounds)
    compounds[0] = dataclasses.replace(compounds[0], gold_synonym="tremor")
    changed = build_files(dataclasses.replace(release_snapshot, compounds=tuple(compounds)), release_meta)
    before = {d["@id"]: d.get("sha256") for d in croissant(build_files(release_snapshot, release_meta))["distribution"]}
    after = {d["@id"]: d.get("sha256") for d in croissant(changed)["distribution"]}
    assert before["hf/compounds/pt.parquet"] != after["hf/compounds/pt.parquet"]
    assert before["EN/neutral.csv"] == after["EN/neutral.csv"]


def test_the_scores_table_loads_with_its_published_column_names(tmp_path, offline, release_snapshot, release_meta):
    files = build_files(release_snapshot, release_meta)
    dataset = load(tmp_path, files, release_meta)
    first = records(dataset, "scores")[0]
    assert first["MWE Synonym Overlap"] == 0  # its @id has no space (mlcroissant refuses one); its name is the header
    header = next(csv.reader(io.StringIO(files["human_compositionality_scores.csv"].decode())))
    document = croissant(files)
    scores = next(r for r in document["recordSet"] if r["@id"] == "scores")
    assert [f["name"] for f in scores["field"]] == header
