"""Machine-made ratings in releases: left out unless a curator opts in, and then kept apart from the human scores.

The demo's token campaign is rated by its simulated panel; a model (``MachineAnnotator``) then answers some of
its items, valid and invalid answers alike. Carol is a curator.
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
from io import StringIO

import pytest
from django.core.management import CommandError, call_command
from django.urls import reverse

from annotation.models import Campaign, Item, MachineAnnotator, MachineAnswer
from releases.actions import check_release, create_release, export_release, release_files
from releases.formats import is_data_file, read_release
from releases.formats.machine import MACHINE_JSONL, MACHINE_PARQUET
from releases.import_actions import import_release
from releases.models import Release, ReleaseError
from tests.datasets.factories import make_dataset
from tests.releases.formats.test_release_card import same_columns

pytestmark = pytest.mark.django_db

IDENTITY = {"kind": "openai_chat", "name": "qwen-chat", "base_url": "http://10.1.2.3:8000/v1", "revision": "qwen-chat"}
SETTINGS = {"temperature": 0.7, "seed": 11, "max_tokens": 200, "structured": True, "logprobs": True}
VALID_ANSWERS = 5


@pytest.fixture
def demo_token() -> Campaign:
    for command, *arguments in (("load_demo",), ("create_demo_campaigns",), ("simulate_ratings", "demo-token")):
        call_command(command, *arguments, stdout=StringIO())
    return Campaign.objects.get(slug="demo-token")


def add_machine_answers(campaign: Campaign) -> list[MachineAnswer]:
    """A chat model answers the first items of ``campaign`` (far from what people said), then one answer fails."""
    machine = MachineAnnotator.objects.create(
        campaign=campaign,
        key="k" * 64,
        label="qwen-chat · reddy-en v1 · sample 1",
        model_name="qwen-chat",
        model_kind="openai_chat",
        model_identity=IDENTITY,
        template_name="reddy-en",
        template_version=1,
        template_text="Rate how literal …",
        settings=SETTINGS,
    )
    items = list(campaign.items.filter(role=Item.Role.REGULAR).order_by("order_key", "pk")[: VALID_ANSWERS + 1])
    answers = [
        MachineAnswer(
            annotator=machine,
            item=item,
            valid=True,
            head_score=5,
            modifier_score=0,
            compound_score=5,
            distributions={
                "compound": {"probs": [0, 0, 0, 0, 0.25, 0.75], "expected": 4.75, "mode": 5, "entropy": 0.811278}
            },
            paraphrases=["a machine's paraphrase"],
        )
        for item in items[:-1]
    ]
    answers.append(
        MachineAnswer(annotator=machine, item=items[-1], valid=False, raw_text="{oops", error="not JSON", attempts=3)
    )
    return MachineAnswer.objects.bulk_create(answers)


def machine_rows(files: dict[str, bytes]) -> list[dict]:
    return [json.loads(line) for line in files[MACHINE_JSONL].decode().splitlines()]


def data_files(release: Release) -> dict[str, bytes]:
    return {path: data for path, data in release_files(release).items() if is_data_file(path)}


def without_readme_hash(datapackage: bytes) -> dict:
    """The package without the checksums and sizes of its metadata files (they name the version)."""
    package = json.loads(datapackage)
    for resource in package["resources"]:
        if not is_data_file(resource["path"]):
            del resource["hash"], resource["bytes"]
    return package


def test_a_release_without_the_opt_in_is_the_same_whether_or_not_machine_answers_exist(demo_token):
    before = create_release("1.0.0", campaigns=["demo-token"])
    add_machine_answers(demo_token)

    after = create_release("1.0.1", campaigns=["demo-token"])

    old, new = release_files(before), release_files(after)
    assert set(old) == set(new) and not any("machine" in path for path in new)
    # Every data file is byte-identical. The metadata files name the version (and the day, the same here): equal
    # once it is swapped back, but for their checksums in datapackage.json. manifest.json lists the checksums
    # of those files, so it differs too.
    assert data_files(before) == data_files(after)
    assert new["README.md"].replace(b"1.0.1", b"1.0.0") == old["README.md"]
    assert without_readme_hash(new["datapackage.json"].replace(b"1.0.1", b"1.0.0")) == without_readme_hash(
        old["datapackage.json"]
    )
    assert "machine" not in new["README.md"].decode().casefold()
    assert (after.scores, after.counts) == (before.scores, before.counts)


def test_with_the_opt_in_the_human_files_stay_the_same_and_the_machine_table_is_labelled(demo_token):
    answers = add_machine_answers(demo_token)
    human = create_release("1.0.0", campaigns=["demo-token"])

    opted = create_release("1.1.0", campaigns=["demo-token"], machine_annotators=True)

    files = release_files(opted)
    hf_machine = "hf/machine_ratings/en.parquet"  # the same rows in the Hugging Face layout
    assert set(data_files(opted)) - set(data_files(human)) == {MACHINE_JSONL, MACHINE_PARQUET, hf_machine}
    assert {p: d for p, d in data_files(opted).items() if "machine" not in p} == data_files(human)
    assert (opted.scores, opted.counts) == (human.scores, human.counts)
    package = json.loads(files["datapackage.json"])
    assert package["agreement"] == json.loads(release_files(human)["datapackage.json"])["agreement"]

    rows = machine_rows(files)
    assert len(rows) == len(answers) == VALID_ANSWERS + 1
    assert {(r["annotator_origin"], r["campaign"], r["level"], r["model"], r["model_kind"]) for r in rows} == {
        ("machine", "demo-token", "token", "qwen-chat", "openai_chat")
    }
    assert all(r["sentence_id"].startswith("naturalistic-") for r in rows)
    assert json.loads(rows[0]["model_identity"]) == {
        "kind": "openai_chat",
        "name": "qwen-chat",
        "revision": "qwen-chat",
    }
    assert json.loads(rows[0]["settings"]) == SETTINGS
    (invalid,) = [r for r in rows if not r["valid"]]
    assert (invalid["compound_score"], invalid["compound_expected"], invalid["error"]) == (None, None, "not JSON")
    valid = [r for r in rows if r["valid"]]
    assert {(r["compound_score"], r["compound_expected"], r["head_expected"]) for r in valid} == {(5, 4.75, None)}
    assert all(r["paraphrases"] == ["a machine's paraphrase"] for r in valid)
    assert "10.1.2.3" not in b"".join(files.values()).decode("utf-8", errors="replace")  # where the model is served

    card = files["README.md"].decode()
    assert "This release also carries MACHINE-MADE ratings" in card
    assert f"{VALID_ANSWERS + 1} answers from campaign `demo-token`, 1 of them invalid" in card
    assert (
        "| qwen-chat · reddy-en v1 · sample 1 | `demo-token` | qwen-chat | openai_chat | kind=openai_chat, "
        "name=qwen-chat, revision=qwen-chat | reddy-en v1 | logprobs=True, max_tokens=200, seed=11, structured=True, "
        f"temperature=0.7 | 1 | {VALID_ANSWERS + 1} | 1 |" in card
    )
    assert_the_datapackage_describes_every_file(files)


def assert_the_datapackage_describes_every_file(files: dict[str, bytes]) -> None:
    """As tests/releases/formats/test_release_card.py checks it: every file, its checksum, every table's columns."""
    package = json.loads(files["datapackage.json"])
    resources = {r["path"]: r for r in package["resources"]}
    assert set(resources) == set(files) - {"datapackage.json", "croissant.json", "manifest.json"}
    for path, resource in resources.items():
        assert resource.get("bytes") == (None if path.endswith(".parquet") else len(files[path]))
        assert resource["hash"] == "sha256:" + hashlib.sha256(files[path]).hexdigest()
        assert resource["format"] and resource["mediatype"] and resource["description"]
        if path.endswith(".csv"):
            header = next(csv.reader(io.StringIO(files[path].decode())))
            assert [f["name"] for f in resource["schema"]["fields"]] == header, path
        elif path.endswith(".jsonl") and files[path]:
            first = json.loads(files[path].decode().splitlines()[0])
            assert [f["name"] for f in resource["schema"]["fields"]] == list(first), path
        if path.endswith(".parquet") and (twin := path.replace(".parquet", ".jsonl")) in resources:
            assert same_columns(resource, resources[twin]), path


def test_an_opted_in_release_reads_back_and_imports_without_its_machine_ratings(demo_token, tmp_path):
    add_machine_answers(demo_token)
    release = create_release("1.1.0", campaigns=["demo-token"], machine_annotators=True)
    export_release(release, tmp_path / "out")

    snapshot, _ = read_release(tmp_path / "out" / "release.zip")
    imported = import_release(tmp_path / "out", collection="copy")

    assert len(snapshot.machine_ratings) == VALID_ANSWERS + 1
    assert imported.machine_ratings_left_out == VALID_ANSWERS + 1
    assert imported.summary.as_dict()["compounds"]["created"] > 0
    assert not MachineAnswer.objects.exclude(annotator__campaign=demo_token).exists()


def test_the_release_page_says_it_includes_machine_made_ratings_and_from_which_model(demo_token, curator_client):
    add_machine_answers(demo_token)
    create_release("1.0.0", campaigns=["demo-token"])
    create_release("1.1.0", campaigns=["demo-token"], machine_annotators=True)

    page = curator_client.get(reverse("release", args=["1.1.0"])).content.decode()
    plain = curator_client.get(reverse("release", args=["1.0.0"])).content.decode()
    confirm = curator_client.post(reverse("release_publish", args=["1.1.0"])).content.decode()
    diff = curator_client.get(reverse("release_diff", args=["1.0.0", "1.1.0"])).content.decode()

    assert 'id="machine-flag">includes machine-made ratings' in page
    assert "<strong>This release includes machine-made ratings</strong>, not human judgements" in page
    assert "never enter the release's scores or agreement" in page
    assert 'qwen-chat <span class="muted">(openai_chat)</span> · template reddy-en v1' in page
    assert "1 invalid" in page
    assert "machine-made" not in plain and "machine-ratings" not in plain
    assert "<strong>This release includes machine-made ratings</strong>" in confirm
    assert f"Machine-made ratings (kept apart from the scores): none → {VALID_ANSWERS + 1} answers" in diff


@pytest.mark.parametrize("build", [check_release, create_release], ids=["the form's quick check", "create_release"])
def test_the_opt_in_without_campaigns_is_refused_naming_the_field(build):
    make_dataset()
    with pytest.raises(ReleaseError, match=r"^machine_annotators: .*name the campaigns too"):
        build("1.0.0", ["en"], machine_annotators=True)


def test_the_form_the_api_and_the_command_refuse_the_opt_in_without_campaigns(curator_client):
    make_dataset()
    body = {"version": "1.0.0", "languages": ["en"], "machine_annotators": "on"}
    form = curator_client.post(reverse("releases"), body)
    api = curator_client.post("/api/releases/", {**body, "machine_annotators": True}, content_type="application/json")
    with pytest.raises(CommandError, match="--machine-annotators .*give --campaigns too"):
        call_command("create_release", "--release", "1.0.0", "--machine-annotators", stdout=StringIO())

    assert form.status_code == 400 and "Machine-made ratings are the answers to campaigns" in form.content.decode()
    assert api.status_code == 400 and "machine_annotators" in api.json()
    assert not Release.objects.exists()


def test_the_form_the_api_and_the_command_pass_the_opt_in_on(demo_token, post_release_form, curator_client):
    add_machine_answers(demo_token)
    out = StringIO()

    post_release_form(
        {"version": "1.0.0", "languages": ["en"], "campaigns": ["demo-token"], "machine_annotators": "on"}
    )
    api = curator_client.post(
        "/api/releases/",
        {"version": "1.1.0", "languages": ["en"], "campaigns": ["demo-token"], "machine_annotators": True},
        content_type="application/json",
    )
    call_command(
        "create_release", "--release", "1.2.0", "--campaigns", "demo-token", "--machine-annotators", stdout=out
    )

    assert api.status_code == 201, api.content
    for version in ("1.0.0", "1.1.0", "1.2.0"):
        assert MACHINE_JSONL in release_files(Release.objects.get(version=version)), version
    assert f"machine-made ratings (kept apart from the scores): {MACHINE_JSONL}" in out.getvalue()
